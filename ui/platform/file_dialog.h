// A file dialog that never holds up a frame: the desktop's own where one is there — zenity (GNOME, and most
// desktops through it), else kdialog (KDE), as tinyfiledialogs finds them — run as a child process whose answer the
// frame polls; with neither (or SPECVIEW_FILE_DIALOG=builtin), an in-window browser drawn with Dear ImGui.
// SPECVIEW_FILE_DIALOG=zenity|kdialog|builtin picks one.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace specview::ui {

class FileDialog {
public:
    enum class Mode { Open, Save };
    FileDialog() = default;
    ~FileDialog();  // a desktop dialog still open is closed
    FileDialog(const FileDialog&) = delete;
    FileDialog& operator=(const FileDialog&) = delete;

    // Starts a dialog for `purpose` (the caller's word for what the path is for: "image", "picture", ...) at
    // `start` (a folder, or a file whose folder and name are proposed). While one is open, another is refused
    // (false). `title` heads it.
    bool start(Mode mode, const std::string& purpose, const std::string& start, const std::string& title);
    bool active() const { return active_; }
    // Which dialog: "zenity", "kdialog" or "builtin" (the one start() would use now).
    static std::string kind();

    // Once a frame: draws the in-window browser (when that is the dialog), and returns the answer once — the path
    // chosen, or "" when cancelled — with its purpose. `layout` gets "file-dialog KIND MODE FOLDER" while it is open.
    struct Answer {
        std::string purpose, path;
    };
    std::optional<Answer> poll(std::vector<std::string>& layout);

private:
    void finish(std::string path);
    void draw_builtin(std::vector<std::string>& layout);
    void read_folder();

    bool active_ = false;
    Mode mode_ = Mode::Open;
    std::string purpose_, title_, kind_;
    // A desktop dialog: the child and the pipe its answer comes through (read without blocking).
    pid_t child_ = -1;
    int pipe_ = -1;
    std::string output_;
    // The in-window browser: the folder shown, its entries (folders first, then files), the name typed.
    std::string folder_, name_;
    std::vector<std::pair<std::string, bool>> entries_;  // (name, is a folder)
    int selected_ = -1;
    std::optional<Answer> answer_;
};

}  // namespace specview::ui
