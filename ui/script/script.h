// The scripted viewer: `specview --script FILE --report FILE.json [IMAGE]` drives the normal viewer (same frame
// loop, panels, worker and texture path) from a text file, one action a line, and reports frame times and how
// long each change of settings took to reach the texture.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace specview::ui {

struct ViewerState;

struct ScriptAction {
    int line = 0;
    std::string
        verb;  // open set drag hover next prev wait wait-ready filter clear-filters screenshot save-texture quit
    std::vector<std::string> args;
    std::string text;                // the line as written (trimmed)
    std::vector<std::string> steps;  // drag: the value of each frame's step
};

// A line the runner cannot carry out: the run stops with exit 2 naming the line.
class ScriptError : public std::runtime_error {
public:
    ScriptError(int line, const std::string& what)
        : std::runtime_error("script line " + std::to_string(line) + ": " + what), line_(line) {}
    int line() const { return line_; }

private:
    int line_;
};

// Reads and checks the whole script before anything runs (unknown actions, options and values are found
// here). Throws ScriptError, or std::runtime_error when the file cannot be read.
std::vector<ScriptAction> parse_script(const std::string& path);

class ScriptRunner {
public:
    explicit ScriptRunner(std::vector<ScriptAction> actions) : actions_(std::move(actions)) {}
    // Called once a frame before the panels are drawn: carries out actions until one has to wait for later
    // frames. Returns false once the script has ended (quit, or its last line done).
    bool before_frame(ViewerState& st);
    // After the frame is drawn: the screenshot the current action asked for, if any (path, or "").
    std::string take_screenshot();
    // After the frame: the spectrum texture's PNG the current action asked for (`save-texture PATH`), or "".
    // save-texture's path and which view's texture (spectrum, image or lab).
    std::pair<std::string, std::string> take_texture_shot() {
        return {std::exchange(texture_shot_, std::string()), std::exchange(texture_which_, std::string())};
    }
    bool timed_out() const { return timed_out_; }
    const std::string& timeout_reason() const { return timeout_reason_; }

private:
    std::vector<ScriptAction> actions_;
    std::size_t next_ = 0;
    int wait_frames_ = 0;  // wait N: frames left
    bool waiting_ready_ = false;
    double wait_started_ = 0;
    std::size_t drag_step_ = 0;  // drag: the next step
    std::string screenshot_, texture_shot_, texture_which_;
    bool timed_out_ = false;
    std::string timeout_reason_;
};

// The report: {"backend", "device", "image", "frame_ms", "changes"}; see the README.
void write_script_report(const std::string& path, const ViewerState& st, const std::vector<double>& frame_ms);

}  // namespace specview::ui
