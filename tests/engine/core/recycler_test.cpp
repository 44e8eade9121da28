// Recycler: what a thread gives back it takes again first; objects given on
// one thread reach another a chain at a time; the link is cleared on the
// way out; and beyond the chains it keeps, given objects are deleted.
#include "engine/core/recycler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace asyncscope {
namespace {

// Counts live objects so that a test sees what the pool deleted. Each test
// has its own type, and so its own pool (a pool is process-wide per type).
template <int kTag>
struct Counted {
  static inline std::atomic<int> live{0};
  Counted() { live.fetch_add(1); }
  ~Counted() { live.fetch_sub(1); }
  Counted* link = nullptr;
  int value = 0;
};

template <class T, size_t kBatch, size_t kKeep>
using Pool = Recycler<T, &T::link, kBatch, kKeep>;

template <class P, class T>
std::vector<T*> take_on_new_thread(size_t n) {
  std::vector<T*> out;
  std::thread([&] {
    for (size_t i = 0; i < n; ++i) out.push_back(P::take());
  }).join();
  return out;
}

template <class P, class T>
void give_on_new_thread(const std::vector<T*>& objects) {
  std::thread([&] {
    for (T* o : objects) P::give(o);
  }).join();  // the thread's chains go to the global list when it exits
}

TEST(Recycler, AThreadTakesBackWhatItGaveLastFirst) {
  using T = Counted<1>;
  using P = Pool<T, 4, 8>;
  T* a = P::take();
  T* b = P::take();
  EXPECT_NE(a, b);
  P::give(a);
  P::give(b);
  EXPECT_EQ(P::take(), b);
  EXPECT_EQ(P::take(), a);
  delete a;
  delete b;
}

TEST(Recycler, ObjectsGivenOnOneThreadAreTakenOnAnotherWithTheirLinkCleared) {
  using T = Counted<2>;
  using P = Pool<T, 4, 64>;
  // 10 is not a multiple of the chain length: partial chains travel too.
  const std::vector<T*> first = take_on_new_thread<P, T>(10);
  for (T* o : first) o->value = 42;
  give_on_new_thread<P, T>(first);
  const std::vector<T*> second = take_on_new_thread<P, T>(10);
  EXPECT_EQ(std::set<T*>(second.begin(), second.end()), std::set<T*>(first.begin(), first.end()));
  for (T* o : second) {
    EXPECT_EQ(o->link, nullptr);
    EXPECT_EQ(o->value, 42) << "objects stay as given: resetting them is the giver's job";
  }
  EXPECT_EQ(T::live.load(), 10) << "nothing new was made while given objects were there";
  for (T* o : second) delete o;
}

TEST(Recycler, BeyondTheChainsItKeepsGivenObjectsAreDeleted) {
  using T = Counted<3>;
  using P = Pool<T, 4, 2>;  // chains of 4, at most 2 kept
  std::vector<T*> objects = take_on_new_thread<P, T>(40);
  EXPECT_EQ(T::live.load(), 40);
  give_on_new_thread<P, T>(objects);
  // Kept: 2 chains in the global list. Everything else was deleted, either
  // when a full chain found the list full or when the thread's cache went.
  EXPECT_EQ(T::live.load(), 8);
  objects = take_on_new_thread<P, T>(8);
  EXPECT_EQ(T::live.load(), 8);
  for (T* o : objects) delete o;
  EXPECT_EQ(T::live.load(), 0);
}

}  // namespace
}  // namespace asyncscope
