// InlineFunction: a move-only callable stored inside its owner (the op record)
// instead of on the heap, so pushing an op allocates nothing. Callables larger
// than the buffer still work, through one heap allocation.
// Threading: like any value; invoke from one thread at a time.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace asyncscope {

template <class Signature, size_t kBytes>
class InlineFunction;

template <class R, class... Args, size_t kBytes>
class InlineFunction<R(Args...), kBytes> {
 public:
  InlineFunction() noexcept = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction>>>
  InlineFunction(F&& f) {  // NOLINT: implicit, like std::function
    using T = std::decay_t<F>;
    if constexpr (sizeof(T) <= kBytes && alignof(T) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<T>) {
      ::new (static_cast<void*>(buffer_)) T(std::forward<F>(f));
      ops_ = &kInlineOps<T>;
    } else {
      *reinterpret_cast<T**>(buffer_) = new T(std::forward<F>(f));
      ops_ = &kHeapOps<T>;
    }
  }

  InlineFunction(InlineFunction&& other) noexcept { move_from(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      move_from(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  R operator()(Args... args) { return ops_->invoke(buffer_, std::forward<Args>(args)...); }

  void reset() noexcept {
    if (ops_) {
      ops_->destroy(buffer_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    R (*invoke)(void*, Args&&...);
    void (*move)(void* from, void* to) noexcept;
    void (*destroy)(void*) noexcept;
  };

  template <class T>
  static constexpr Ops kInlineOps{
      [](void* p, Args&&... a) -> R { return (*static_cast<T*>(p))(std::forward<Args>(a)...); },
      [](void* from, void* to) noexcept {
        ::new (to) T(std::move(*static_cast<T*>(from)));
        static_cast<T*>(from)->~T();
      },
      [](void* p) noexcept { static_cast<T*>(p)->~T(); }};

  template <class T>
  static constexpr Ops kHeapOps{
      [](void* p, Args&&... a) -> R { return (**static_cast<T**>(p))(std::forward<Args>(a)...); },
      [](void* from, void* to) noexcept { *static_cast<T**>(to) = *static_cast<T**>(from); },
      [](void* p) noexcept { delete *static_cast<T**>(p); }};

  void move_from(InlineFunction& other) noexcept {
    if (other.ops_) {
      other.ops_->move(other.buffer_, buffer_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char buffer_[kBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace asyncscope
