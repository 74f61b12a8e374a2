// A queue between one stage of a pipeline and the next, bounded so that the producer stays at most `capacity` items
// ahead: push waits while it is full, pop waits while it is empty. close() is the producer's end (pops drain what is
// left, then return nothing); cancel() is the consumer's (pushes, waiting or not, return false at once).
// The command line's stack (decoder -> transforms) and batch (transforms -> encoders) hand their items over this way.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace specview {

template <class T>
class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

    // Waits for room; false when cancelled (the item is dropped).
    bool push(T item) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return items_.size() < capacity_ || cancelled_; });
        if (cancelled_) return false;
        items_.push_back(std::move(item));
        cv_.notify_all();
        return true;
    }
    // Waits for an item; nothing once closed (or cancelled) and empty.
    std::optional<T> pop() {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !items_.empty() || closed_ || cancelled_; });
        if (items_.empty()) return std::nullopt;
        std::optional<T> item(std::move(items_.front()));
        items_.pop_front();
        cv_.notify_all();
        return item;
    }
    void close() {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
        cv_.notify_all();
    }
    void cancel() {
        std::lock_guard<std::mutex> lock(mu_);
        cancelled_ = true;
        cv_.notify_all();
    }

private:
    const std::size_t capacity_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<T> items_;
    bool closed_ = false, cancelled_ = false;
};

}  // namespace specview
