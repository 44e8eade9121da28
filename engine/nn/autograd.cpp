#include "engine/nn/autograd.h"

#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/tensor/ops.h"

namespace asyncscope::nn::autograd {

struct Variable::State {
  NDArray data;
  NDArray grad;
  GradReq req = GradReq::write;
};

namespace {

using StatePtr = std::shared_ptr<Variable::State>;

// Leaves by storage. Global rather than thread-local so that a model built on
// one thread can be trained on another; a mutex is cheap next to a tensor op.
// An entry lives exactly as long as its Variable, which holds a handle to the
// data, so a registered storage address is never reused by another array.
struct LeafRegistry {
  std::mutex mutex;
  std::unordered_map<const detail::Chunk*, StatePtr> leaves;

  void add(const StatePtr& state) {
    std::lock_guard lock(mutex);
    if (!leaves.emplace(state->data.chunk(), state).second) {
      throw std::invalid_argument("autograd::Variable: this array is already the data of another Variable");
    }
  }
  void remove(const StatePtr& state) noexcept {
    std::lock_guard lock(mutex);
    leaves.erase(state->data.chunk());
  }
  StatePtr find(const detail::Chunk* chunk) {
    std::lock_guard lock(mutex);
    auto it = leaves.find(chunk);
    return it == leaves.end() ? nullptr : it->second;
  }
};

LeafRegistry& registry() {
  static LeafRegistry* r = new LeafRegistry;  // never destroyed: Variables may die during static destruction
  return *r;
}

// Where a taped op's input came from: another taped op (node >= 0), a leaf, or
// neither (a constant: no gradient flows there).
struct Source {
  int node = -1;
  StatePtr leaf;
  Shape shape;
};

struct Node {
  NDArray output;  // keeps the storage (the node's identity) alive while taped
  std::array<Source, 2> inputs;
  int num_inputs = 0;
  GradientFn gradient;
};

// Invariant: every storage in `produced` belongs to an array held by `nodes`,
// so no lookup can match an unrelated array that reused a freed address.
struct Tape {
  int depth = 0;
  std::vector<Node> nodes;
  std::unordered_map<const detail::Chunk*, int> produced;

  void clear() noexcept {
    produced.clear();
    nodes.clear();  // drops every handle the tape held: the frees are pushed now
  }
  ~Tape() { clear(); }
};

thread_local Tape tape;

Source source_of(const NDArray& a) {
  Source s;
  s.shape = a.shape();
  const detail::Chunk* chunk = a.chunk();
  if (auto it = tape.produced.find(chunk); it != tape.produced.end()) {
    s.node = it->second;
  } else if (StatePtr leaf = registry().find(chunk); leaf && leaf->req != GradReq::null) {
    s.leaf = std::move(leaf);
  }
  return s;
}

bool requires_grad(const Source& s) { return s.node >= 0 || (s.leaf && s.leaf->req != GradReq::null); }

NDArray accumulate(NDArray total, NDArray more) {
  return total.is_null() ? more : total + more;  // out of place: a gradient may be shared
}

// Clears the tape however backward leaves (including by exception).
struct ClearOnExit {
  ~ClearOnExit() { tape.clear(); }
};

const Variable::State& checked(const StatePtr& s) {
  if (!s) throw std::logic_error("autograd::Variable: use of an empty Variable");
  return *s;
}

}  // namespace

Variable::Variable(NDArray data, GradReq req) : state_(std::make_shared<State>()) {
  state_->req = req;
  if (req != GradReq::null) state_->grad = zeros(data.context_ptr(), data.shape());
  state_->data = std::move(data);
  registry().add(state_);
}

Variable::~Variable() {
  if (state_) registry().remove(state_);
}

Variable& Variable::operator=(Variable&& other) noexcept {
  if (this != &other) {
    if (state_) registry().remove(state_);
    state_ = std::move(other.state_);
  }
  return *this;
}

const NDArray& Variable::data() const { return checked(state_).data; }
const NDArray& Variable::grad() const { return checked(state_).grad; }
GradReq Variable::grad_req() const { return checked(state_).req; }

void Variable::set_grad_req(GradReq req) {
  checked(state_);
  if (req != GradReq::null && state_->grad.is_null()) {
    state_->grad = zeros(state_->data.context_ptr(), state_->data.shape());
  }
  state_->req = req;
}

void Variable::zero_grad() {
  checked(state_);
  // A fresh zeros array rather than grad *= 0: NaN * 0 would stay NaN.
  if (!state_->grad.is_null()) state_->grad = zeros(state_->data.context_ptr(), state_->data.shape());
}

Record::Record() { ++tape.depth; }

Record::~Record() {
  if (--tape.depth == 0) tape.clear();
}

bool is_recording() noexcept { return tape.depth > 0; }
size_t tape_size() noexcept { return tape.nodes.size(); }

bool needs_tape(std::initializer_list<const NDArray*> inputs) {
  if (!is_recording()) return false;
  for (const NDArray* a : inputs) {
    if (requires_grad(source_of(*a))) return true;
  }
  return false;
}

NDArray record_op(std::initializer_list<const NDArray*> inputs, NDArray output, GradientFn gradient) {
  if (!is_recording()) return output;
  if (inputs.size() == 0 || inputs.size() > 2) {
    throw std::invalid_argument("autograd::record_op: an op takes one or two inputs");
  }
  Node node;
  bool any = false;
  for (const NDArray* a : inputs) {
    Source& src = node.inputs[static_cast<size_t>(node.num_inputs++)];
    src = source_of(*a);
    any = any || requires_grad(src);
  }
  if (!any) return output;  // only constants: no gradient can flow through this op
  const detail::Chunk* chunk = output.chunk();
  if (tape.produced.contains(chunk) || registry().find(chunk)) {
    throw std::logic_error("autograd::record_op: the output must be a new array, not an input or a leaf");
  }
  node.output = output;
  node.gradient = std::move(gradient);
  tape.produced.emplace(chunk, static_cast<int>(tape.nodes.size()));
  tape.nodes.push_back(std::move(node));
  return output;
}

namespace {

// head_grad by value: backward holds the only handle to a head gradient it
// made itself, so the ownership test at the end sees it as unshared.
void run_backward(const NDArray& head, NDArray head_grad) {
  ClearOnExit clear_on_exit;
  const auto found = tape.produced.find(head.chunk());
  if (found == tape.produced.end()) {
    throw std::logic_error(
        "autograd::backward: this array was not computed by taped ops in the current recording; call "
        "backward inside the autograd::Record scope that computed it, from arrays that need gradients "
        "(Variables or parameters)");
  }
  if (!(head_grad.shape() == head.shape())) {
    throw std::invalid_argument("autograd::backward: head gradient " + head_grad.shape().to_string() +
                                " does not match the head " + head.shape().to_string());
  }
  std::vector<NDArray> grads(tape.nodes.size());
  grads[static_cast<size_t>(found->second)] = std::move(head_grad);
  std::vector<std::pair<StatePtr, NDArray>> leaf_grads;
  std::unordered_map<const Variable::State*, size_t> leaf_index;

  // Taped order is a topological order, so one reverse sweep suffices; nodes
  // the head does not depend on never receive a gradient and are skipped.
  for (int i = found->second; i >= 0; --i) {
    NDArray dy = std::move(grads[static_cast<size_t>(i)]);
    if (dy.is_null()) continue;
    Node& node = tape.nodes[static_cast<size_t>(i)];
    std::array<bool, 2> need{};
    for (int k = 0; k < node.num_inputs; ++k) need[static_cast<size_t>(k)] = requires_grad(node.inputs[static_cast<size_t>(k)]);
    std::array<NDArray, 2> dx = node.gradient(dy, need);
    for (int k = 0; k < node.num_inputs; ++k) {
      const auto ks = static_cast<size_t>(k);
      if (!need[ks]) continue;
      const Source& src = node.inputs[ks];
      if (dx[ks].is_null() || !(dx[ks].shape() == src.shape)) {
        throw std::logic_error("autograd::backward: a gradient function returned " +
                               (dx[ks].is_null() ? std::string("no gradient") : dx[ks].shape().to_string()) +
                               " for an input of shape " + src.shape.to_string());
      }
      if (src.node >= 0) {
        NDArray& g = grads[static_cast<size_t>(src.node)];
        g = accumulate(std::move(g), std::move(dx[ks]));
      } else {
        auto [it, fresh] = leaf_index.emplace(src.leaf.get(), leaf_grads.size());
        if (fresh) leaf_grads.emplace_back(src.leaf, NDArray());
        NDArray& g = leaf_grads[it->second].second;
        g = accumulate(std::move(g), std::move(dx[ks]));
      }
    }
  }
  grads.clear();
  tape.clear();  // before the ownership test below: the tape's handles are gone now

  for (auto& [leaf, g] : leaf_grads) {
    if (leaf->req == GradReq::add) {
      leaf->grad += g;
    } else if (leaf->req == GradReq::write) {
      // A gradient some other handle can see (the head gradient passed straight
      // through an add, or one array given to two leaves) is copied, so that a
      // later in-place change of one grad never changes another array.
      const bool shared = g.chunk()->handles.load(std::memory_order_relaxed) > 1;
      leaf->grad = shared ? copy(g) : std::move(g);
    }
    g = NDArray();  // so that a later leaf given the same array may take it
  }
}

}  // namespace

void backward(const NDArray& head) {
  if (head.is_null()) throw std::invalid_argument("autograd::backward: null head array");
  run_backward(head, ones(head.context_ptr(), head.shape()));
}

void backward(const NDArray& head, const NDArray& head_grad) {
  if (head.is_null() || head_grad.is_null()) throw std::invalid_argument("autograd::backward: null array");
  run_backward(head, head_grad);
}

}  // namespace asyncscope::nn::autograd
