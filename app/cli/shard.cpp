#include "app/cli/shard.h"

#include <cstdlib>

namespace specview {

namespace {
// A whole non-negative number (no sign, no spaces), or -1.
long long whole(const std::string& s) {
    if (s.empty() || s.size() > 9) return -1;
    long long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}
}  // namespace

std::uint64_t shard_hash(const std::string& key) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string parse_shard(const std::string& text, Shard* out, const std::function<const char*(const char*)>& env_in) {
    const auto env = env_in ? env_in : [](const char* name) -> const char* { return std::getenv(name); };
    auto var = [&](const char* name) -> long long {
        const char* v = env(name);
        return v ? whole(v) : -1;
    };
    const std::string what = "--shard " + text + ": ";
    long long k = -1, n = -1;
    if (text == "auto") {
        // Slurm: the task id, and the count (or the array's min and max: ids min..max).
        if (!env("SLURM_ARRAY_TASK_ID"))
            return what + "SLURM_ARRAY_TASK_ID is not set (run it as a Slurm array task, or give --shard K/N)";
        const long long id = var("SLURM_ARRAY_TASK_ID");
        if (id < 0) return what + "SLURM_ARRAY_TASK_ID is not a whole number";
        if (env("SLURM_ARRAY_TASK_COUNT") && env("SLURM_ARRAY_TASK_MIN")) {
            const long long lo = var("SLURM_ARRAY_TASK_MIN");
            k = id - lo, n = var("SLURM_ARRAY_TASK_COUNT");
        } else if (env("SLURM_ARRAY_TASK_COUNT")) {
            k = id, n = var("SLURM_ARRAY_TASK_COUNT");
        } else if (env("SLURM_ARRAY_TASK_MIN") && env("SLURM_ARRAY_TASK_MAX")) {
            const long long lo = var("SLURM_ARRAY_TASK_MIN"), hi = var("SLURM_ARRAY_TASK_MAX");
            k = id - lo, n = lo >= 0 && hi >= lo ? hi - lo + 1 : -1;
        } else {
            return what + "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX is set";
        }
    } else if (text.rfind("auto/", 0) == 0) {
        n = whole(text.substr(5));
        const char* name = env("JOB_COMPLETION_INDEX") ? "JOB_COMPLETION_INDEX" : "SLURM_ARRAY_TASK_ID";
        if (!env(name))
            return what + "neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID is set";
        k = var(name);
        if (k < 0) return what + name + " is not a whole number";
    } else {
        const std::size_t slash = text.find('/');
        if (slash == std::string::npos) return what + "K/N (0 <= K < N), auto or auto/N";
        k = whole(text.substr(0, slash)), n = whole(text.substr(slash + 1));
    }
    if (n < 1) return what + "the number of shards must be a whole number of at least 1";
    if (k < 0 || k >= n)
        return what + "the shard index " + std::to_string(k) + " is outside 0.." + std::to_string(n - 1);
    out->index = int(k);
    out->count = int(n);
    return "";
}

}  // namespace specview
