#include "ui/platform/file_dialog.h"

#include <fcntl.h>
#include <imgui.h>
#include <imgui_stdlib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "app/cli/shared.h"    // natural_less
#include "app/io/load/load.h"  // image_extensions

extern char** environ;

namespace specview::ui {

namespace fs = std::filesystem;

namespace {

// Whether `program` is an executable on PATH.
bool on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::string dirs = path;
    for (std::size_t a = 0; a <= dirs.size();) {
        const std::size_t b = std::min(dirs.find(':', a), dirs.size());
        const std::string dir = dirs.substr(a, b - a);
        if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
        a = b + 1;
    }
    return false;
}

// The folder and the file name a dialog starts at.
void split_start(const std::string& start, std::string* folder, std::string* name) {
    std::error_code ec;
    fs::path p = start.empty() ? fs::current_path(ec) : fs::path(start);
    if (fs::is_directory(p, ec)) {
        *folder = fs::absolute(p, ec).string();
        name->clear();
        return;
    }
    fs::path dir = p.parent_path();
    if (dir.empty()) dir = fs::current_path(ec);
    *folder = fs::absolute(dir, ec).string();
    *name = p.filename().string();
}

}  // namespace

std::string FileDialog::kind() {
    if (const char* forced = std::getenv("SPECVIEW_FILE_DIALOG")) {
        const std::string f = forced;
        if (f == "zenity" || f == "kdialog" || f == "builtin") return f;
    }
    if (on_path("zenity")) return "zenity";
    if (on_path("kdialog")) return "kdialog";
    return "builtin";
}

FileDialog::~FileDialog() {
    if (child_ > 0) {
        ::kill(child_, SIGTERM);
        ::waitpid(child_, nullptr, 0);
    }
    if (pipe_ >= 0) ::close(pipe_);
}

bool FileDialog::start(Mode mode, const std::string& purpose, const std::string& start, const std::string& title) {
    if (active_) return false;
    mode_ = mode;
    purpose_ = purpose;
    title_ = title;
    kind_ = kind();
    answer_.reset();
    output_.clear();
    split_start(start, &folder_, &name_);
    active_ = true;
    if (kind_ == "builtin") {
        read_folder();
        return true;
    }
    // The desktop's dialog: its answer (the path, one line) comes on its stdout; its chatter on stderr is dropped.
    std::vector<std::string> args;
    // (a folder given with its trailing slash: the dialogs open inside it)
    const std::string at = name_.empty() ? (folder_.empty() || folder_.back() != '/' ? folder_ + "/" : folder_)
                                         : (fs::path(folder_) / name_).string();
    if (kind_ == "zenity") {
        args = {"zenity", "--file-selection", "--title=" + title, "--filename=" + at};
        if (mode == Mode::Save) args.push_back("--save");
        if (mode == Mode::Open) {
            std::string filter = "--file-filter=Images and videos |";
            for (const auto& e : image_extensions()) filter += " *" + e;
            args.push_back(filter);
            args.push_back("--file-filter=All files | *");
        }
    } else {
        std::string filter;
        for (const auto& e : image_extensions()) filter += (filter.empty() ? "*" : " *") + e;
        args = {"kdialog", "--title", title, mode == Mode::Save ? "--getsavefilename" : "--getopenfilename", at};
        if (mode == Mode::Open) args.push_back(filter + "|Images and videos");
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        kind_ = "builtin";  // (no pipe: the in-window browser instead)
        read_folder();
        return true;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        kind_ = "builtin";
        read_folder();
        return true;
    }
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    child_ = pid;
    pipe_ = fds[0];
    return true;
}

void FileDialog::finish(std::string path) {
    active_ = false;
    answer_ = Answer{purpose_, std::move(path)};
}

std::optional<FileDialog::Answer> FileDialog::poll(std::vector<std::string>& layout) {
    if (active_) {
        layout.push_back("file-dialog " + kind_ + (mode_ == Mode::Save ? " save " : " open ") + folder_);
        if (kind_ == "builtin") {
            draw_builtin(layout);
        } else if (pipe_ >= 0) {
            char buf[4096];
            for (;;) {
                const ssize_t n = ::read(pipe_, buf, sizeof buf);
                if (n > 0) {
                    output_.append(buf, std::size_t(n));
                    continue;
                }
                if (n == 0) {  // the dialog closed its end: it is done
                    ::close(pipe_);
                    pipe_ = -1;
                }
                break;  // (n < 0: EAGAIN, nothing yet)
            }
        }
        if (kind_ != "builtin" && pipe_ < 0 && child_ > 0) {
            int status = 0;
            if (::waitpid(child_, &status, WNOHANG) == child_) {
                child_ = -1;
                const bool chose = WIFEXITED(status) && WEXITSTATUS(status) == 0;
                std::string path = output_.substr(0, output_.find('\n'));
                finish(chose ? path : std::string());
            }
        }
    }
    return std::exchange(answer_, std::nullopt);
}

void FileDialog::read_folder() {
    entries_.clear();
    selected_ = -1;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder_, fs::directory_options::skip_permission_denied, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;  // (hidden, as the desktop's dialogs do)
        std::error_code ec2;
        const bool dir = e.is_directory(ec2);
        if (dir || mode_ == Mode::Save || has_image_extension(name)) entries_.emplace_back(name, dir);
    }
    std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second : natural_less(a.first, b.first);
    });
}

void FileDialog::draw_builtin(std::vector<std::string>& layout) {
    const float s = ImGui::GetIO().FontGlobalScale;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowSize(ImVec2(std::min(640 * s, vp->WorkSize.x * 0.9f), std::min(480 * s, vp->WorkSize.y * 0.8f)),
                             ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x / 2, vp->WorkPos.y + vp->WorkSize.y / 2),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.98f);
    bool open = true;
    if (!ImGui::Begin((title_ + "###file-dialog").c_str(), &open, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        if (!open) finish("");
        return;
    }
    // The folder: typed (Enter goes there), or one up.
    if (ImGui::Button("Up")) {
        folder_ = fs::path(folder_).parent_path().string();
        if (folder_.empty()) folder_ = "/";
        read_folder();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    std::string typed = folder_;
    if (ImGui::InputText("##folder", &typed, ImGuiInputTextFlags_EnterReturnsTrue)) {
        std::error_code ec;
        if (fs::is_directory(typed, ec)) {
            folder_ = typed;
            read_folder();
        }
    }
    const float footer = ImGui::GetFrameHeightWithSpacing() * (mode_ == Mode::Save ? 2.2f : 1.2f);
    std::string picked;
    if (ImGui::BeginChild("entries", ImVec2(0, -footer), true)) {
        for (int i = 0; i < int(entries_.size()); ++i) {
            const auto& [name, dir] = entries_[std::size_t(i)];
            const std::string label = dir ? name + "/" : name;
            if (ImGui::Selectable(label.c_str(), selected_ == i, ImGuiSelectableFlags_AllowDoubleClick)) {
                selected_ = i;
                if (!dir) name_ = name;
                if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
                    if (dir) {
                        folder_ = (fs::path(folder_) / name).string();
                        read_folder();
                        break;
                    }
                    picked = (fs::path(folder_) / name).string();
                }
            }
        }
        if (entries_.empty()) ImGui::TextDisabled(mode_ == Mode::Open ? "(no images here)" : "(empty)");
    }
    ImGui::EndChild();
    if (mode_ == Mode::Save) {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputTextWithHint("##name", "file name", &name_, ImGuiInputTextFlags_EnterReturnsTrue) &&
            !name_.empty())
            picked = (fs::path(folder_) / name_).string();
    }
    const bool can = !name_.empty();
    ImGui::BeginDisabled(!can);
    if (ImGui::Button(mode_ == Mode::Save ? "Save" : "Open") && can) picked = (fs::path(folder_) / name_).string();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) open = false;
    layout.push_back("file-dialog-entries " + std::to_string(entries_.size()));
    ImGui::End();
    if (!picked.empty())
        finish(picked);
    else if (!open)
        finish("");
}

}  // namespace specview::ui
