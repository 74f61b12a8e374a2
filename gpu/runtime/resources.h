// Move-only owners of GPU resources: nothing leaks on an early return or an exception, and no business code
// pairs cudaMalloc with cudaFree by hand.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) { resize(n); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }

    // Reallocates only to grow; the contents are not kept.
    void resize(std::size_t n) {
        if (n <= n_ && p_) return;
        release();
        if (n == 0) return;
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
        n_ = n;
    }
    void release() noexcept {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* get() const { return p_; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

class Stream {
public:
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s_) cudaStreamDestroy(s_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
    cudaStream_t get() const { return s_; }
    void sync() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() {
        if (e_) cudaEventDestroy(e_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
    Event& operator=(Event&& o) noexcept {
        if (this != &o) {
            if (e_) cudaEventDestroy(e_);
            e_ = std::exchange(o.e_, nullptr);
        }
        return *this;
    }
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) const { CUDA_CHECK(cudaEventRecord(e_, s)); }

private:
    cudaEvent_t e_ = nullptr;
};

// Milliseconds between two recorded events (the later one must have completed).
inline float elapsed_ms(const Event& a, const Event& b) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
    return ms;
}

class CufftPlan {
public:
    CufftPlan() = default;
    ~CufftPlan() { reset(); }
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;
    CufftPlan(CufftPlan&& o) noexcept : h_(std::exchange(o.h_, 0)), valid_(std::exchange(o.valid_, false)) {}
    CufftPlan& operator=(CufftPlan&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, 0);
            valid_ = std::exchange(o.valid_, false);
        }
        return *this;
    }
    // rows x cols (row-major), the given type.
    void make_2d(int rows, int cols, cufftType type, cudaStream_t stream) {
        reset();
        CUFFT_CHECK(cufftPlan2d(&h_, rows, cols, type));
        valid_ = true;
        CUFFT_CHECK(cufftSetStream(h_, stream));
    }
    // depth x rows x cols (row-major), the given type.
    void make_3d(int depth, int rows, int cols, cufftType type, cudaStream_t stream) {
        reset();
        CUFFT_CHECK(cufftPlan3d(&h_, depth, rows, cols, type));
        valid_ = true;
        CUFFT_CHECK(cufftSetStream(h_, stream));
    }
    void reset() noexcept {
        if (valid_) cufftDestroy(h_);
        valid_ = false;
        h_ = 0;
    }
    cufftHandle get() const { return h_; }
    bool valid() const { return valid_; }

private:
    cufftHandle h_ = 0;
    bool valid_ = false;
};

// Page-locked host memory for asynchronous copies.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    ~PinnedBuffer() {
        if (p_) cudaFreeHost(p_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    void resize(std::size_t n) {
        if (n <= n_ && p_) return;
        if (p_) cudaFreeHost(p_);
        p_ = nullptr;
        n_ = 0;
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
        n_ = n;
    }
    T* get() const { return p_; }
    std::size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

}  // namespace specview::gpu
