// Per-stage timings with CUDA events: start() once, mark(name, bytes) after each stage's launches, collect()
// after the work is done. Events are pooled, so a live viewer's re-runs allocate nothing.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/runtime/resources.h"

namespace specview::gpu {

class StageTimer {
public:
    void start(cudaStream_t s) {
        stream_ = s;
        names_.clear();
        bytes_.clear();
        used_ = 0;
        record();
    }
    void mark(std::string name, double bytes) {
        record();
        names_.push_back(std::move(name));
        bytes_.push_back(bytes);
    }
    bool active() const { return used_ > 0; }
    std::size_t marks() const { return names_.size(); }
    // Waits for the last event; returns one entry per mark.
    std::vector<KernelTiming> collect() const {
        std::vector<KernelTiming> out;
        if (used_ == 0) return out;
        CUDA_CHECK(cudaEventSynchronize(events_[used_ - 1].get()));
        for (std::size_t i = 0; i + 1 < used_; ++i)
            out.push_back({names_[i], double(elapsed_ms(events_[i], events_[i + 1])), bytes_[i]});
        return out;
    }

private:
    void record() {
        if (used_ == events_.size()) events_.emplace_back();
        events_[used_++].record(stream_);
    }
    cudaStream_t stream_ = nullptr;
    std::vector<Event> events_;
    std::size_t used_ = 0;
    std::vector<std::string> names_;
    std::vector<double> bytes_;
};

// mark() only when a timer is there.
inline void mark(StageTimer* t, std::string name, double bytes) {
    if (t) t->mark(std::move(name), bytes);
}

}  // namespace specview::gpu
