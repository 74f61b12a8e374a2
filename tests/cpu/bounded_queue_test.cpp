// app/core/bounded_queue.h: order, the bound, close (the producer's end) and cancel (the consumer's).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "app/core/bounded_queue.h"

namespace specview::test {
namespace {

TEST(BoundedQueue, HandsItemsOverInOrderAndDrainsAfterClose) {
    BoundedQueue<int> q(3);
    std::thread producer([&] {
        for (int i = 0; i < 100; ++i) ASSERT_TRUE(q.push(i));
        q.close();
    });
    std::vector<int> got;
    while (auto v = q.pop()) got.push_back(*v);
    producer.join();
    ASSERT_EQ(got.size(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(got[std::size_t(i)], i);
    EXPECT_FALSE(q.pop().has_value()) << "closed and empty: nothing, at once";
}

TEST(BoundedQueue, TheProducerWaitsWhileItIsFull) {
    BoundedQueue<int> q(2);
    std::atomic<int> pushed{0};
    std::thread producer([&] {
        for (int i = 0; i < 5; ++i) {
            q.push(i);
            ++pushed;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(pushed.load(), 2) << "two fit; the third waits for a pop";
    EXPECT_EQ(*q.pop(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(pushed.load(), 3);
    q.cancel();  // the consumer stops: the waiting push gives up
    producer.join();
    EXPECT_EQ(pushed.load(), 5) << "pushes after cancel return at once";
}

TEST(BoundedQueue, CancelMakesPushReturnFalse) {
    BoundedQueue<int> q(1);
    EXPECT_TRUE(q.push(1));
    q.cancel();
    EXPECT_FALSE(q.push(2));
}

}  // namespace
}  // namespace specview::test
