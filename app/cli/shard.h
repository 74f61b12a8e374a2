// Splitting a batch over processes started anywhere (issue "Beyond one machine"): --shard K/N takes the K-th of N
// disjoint parts of the inputs by a hash of each input's name relative to its root (a directory's files by their
// path inside it, files given one by one or through --list by their path as given), so the parts depend neither on
// the order inputs are listed in nor on the node; --shard auto (Slurm array variables) and auto/N (Kubernetes
// Indexed Jobs' JOB_COMPLETION_INDEX, or SLURM_ARRAY_TASK_ID) read the index from the environment.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace specview {

struct Shard {
    int index = 0, count = 1;  // this process takes the inputs whose key hashes to `index` modulo `count`
};

// "K/N", "auto" or "auto/N" with `env` giving the environment (std::getenv by default). Returns "" and sets *out,
// or says what is wrong (naming missing variables).
std::string parse_shard(const std::string& text, Shard* out, const std::function<const char*(const char*)>& env = {});

// The stable 64-bit FNV-1a hash of a key (the same on every machine and run).
std::uint64_t shard_hash(const std::string& key);

inline bool in_shard(const std::string& key, const Shard& s) {
    return shard_hash(key) % std::uint64_t(s.count) == std::uint64_t(s.index);
}

}  // namespace specview
