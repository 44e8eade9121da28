#include "engine/tensor/autograd.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/core/engine.h"
#include "engine/tensor/autograd_graph.h"
#include "engine/tensor/context.h"
#include "engine/tensor/ops.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::autograd {
namespace {

thread_local bool tls_recording = false;
std::atomic<int64_t> g_live_nodes{0};
std::atomic<uint64_t> g_next_seq{1};

// Nodes whose destruction was handed over while another destruction runs
// higher up this thread's stack (see discard()).
thread_local std::vector<std::shared_ptr<Node>>* tls_graveyard = nullptr;

bool wants_grad(const Edge& e) noexcept {
  if (e.node) return true;
  if (e.leaf.is_null()) return false;
  const ArrayGrad* g = e.leaf.chunk()->grad.get();
  return g && g->wants_grad();
}

// Runs f with a graveyard active on this thread: every node discarded
// meanwhile (directly or by the arrays f releases) is destroyed from the loop
// below, one at a time, instead of by recursion.
template <class F>
void with_graveyard(F&& f) noexcept {
  if (tls_graveyard != nullptr) {
    f();
    return;
  }
  std::vector<std::shared_ptr<Node>> graveyard;
  tls_graveyard = &graveyard;
  f();
  while (!graveyard.empty()) {
    std::shared_ptr<Node> next = std::move(graveyard.back());
    graveyard.pop_back();
    next.reset();
  }
  tls_graveyard = nullptr;
}

}  // namespace

namespace detail {

void discard(std::shared_ptr<Node> node) noexcept {
  if (!node) return;
  with_graveyard([&node] { tls_graveyard->push_back(std::move(node)); });
}

}  // namespace detail

Node::Node() : seq(g_next_seq.fetch_add(1, std::memory_order_relaxed)) {
  g_live_nodes.fetch_add(1, std::memory_order_relaxed);
}

Node::~Node() {
  release();
  g_live_nodes.fetch_sub(1, std::memory_order_relaxed);
}

void Node::release() noexcept {
  with_graveyard([this] {
    for (Edge& e : inputs) detail::discard(std::move(e.node));
    inputs.clear();
    gradient = nullptr;  // the arrays it saved: their nodes go to the graveyard
  });
}

Record::Record() : previous_(std::exchange(tls_recording, true)) {}
Record::~Record() { tls_recording = previous_; }
Pause::Pause() : previous_(std::exchange(tls_recording, false)) {}
Pause::~Pause() { tls_recording = previous_; }

bool is_recording() noexcept { return tls_recording; }
int64_t live_nodes() noexcept { return g_live_nodes.load(std::memory_order_relaxed); }

bool should_record_slow(std::initializer_list<const NDArray*> inputs) noexcept {
  if (!tls_recording) return false;
  for (const NDArray* a : inputs) {
    if (a->requires_grad()) return true;
  }
  return false;
}

bool should_record(std::span<const NDArray> inputs) noexcept {
  if (!tls_recording) return false;
  for (const NDArray& a : inputs) {
    if (a.requires_grad()) return true;
  }
  return false;
}

namespace {

void record_edges(trace::NameId name, std::vector<Edge> edges, const NDArray& output, GradientFn gradient) {
  asyncscope::detail::Chunk* out = output.chunk("autograd::record");
  if (!out->grad) out->grad = std::make_unique<ArrayGrad>();
  if (out->grad->leaf) {
    throw std::logic_error("autograd: op " + std::string(trace::name_of(name)) +
                           " wrote an array that has attach_grad(); an op's output must be a new array");
  }
  auto node = std::make_shared<Node>();
  node->name = name;
  if (trace::Recorder* rec = out->context->engine().recorder().get(); rec != nullptr && rec->enabled()) {
    node->scope = rec->scope_path();
  }
  node->inputs = std::move(edges);
  node->gradient = std::move(gradient);
  detail::discard(std::exchange(out->grad->node, std::move(node)));
}

Edge edge_of(const NDArray& a) {
  Edge e;
  const asyncscope::detail::Chunk* c = a.chunk();
  e.shape = c->shape;
  if (const ArrayGrad* g = c->grad.get(); g && g->node) {
    e.node = g->node;
  } else if (g && g->wants_grad()) {
    e.leaf = a;
  }
  return e;
}

}  // namespace

void record(trace::NameId name, std::initializer_list<const NDArray*> inputs, const NDArray& output,
            GradientFn gradient) {
  if (!should_record(inputs)) return;
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const NDArray* a : inputs) edges.push_back(edge_of(*a));
  record_edges(name, std::move(edges), output, std::move(gradient));
}

void record(trace::NameId name, std::span<const NDArray> inputs, const NDArray& output, GradientFn gradient) {
  if (!should_record(inputs)) return;
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const NDArray& a : inputs) edges.push_back(edge_of(a));
  record_edges(name, std::move(edges), output, std::move(gradient));
}

namespace {

[[noreturn]] void graph_used(const Node& node) {
  throw std::logic_error("backward: the graph through op " + std::string(trace::name_of(node.name)) +
                         " was already used by an earlier backward and freed; record the forward pass again "
                         "(or pass retain_graph to the first backward)");
}

// Every node the head depends on, newest first (creation order is a
// topological order: an op's inputs exist before it does).
std::vector<std::shared_ptr<Node>> reachable(const std::shared_ptr<Node>& head) {
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> stack{head};
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(n.get()).second) continue;
    if (n->used) graph_used(*n);
    for (const Edge& e : n->inputs) {
      if (e.node) stack.push_back(e.node);
    }
    order.push_back(std::move(n));
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a->seq > b->seq; });
  return order;
}

// Puts backward's gradient ops in the trace scopes of the ops they
// differentiate, inside one scope named for the call ("backward", "grad"):
// the holders of a backward's memory then name the layer as the forward's
// do. Enters only what differs from the previous node's scopes (ops recorded
// in the same entering of a scope share its frame), and leaves everything it
// entered when it goes, an exception included.
class ScopeReplay {
 public:
  ScopeReplay(trace::Recorder* recorder, const char* call)
      : recorder_(recorder != nullptr && recorder->enabled() ? recorder : nullptr) {
    if (recorder_ != nullptr) recorder_->enter_scope(trace::intern(call));
  }
  ~ScopeReplay() {
    if (recorder_ == nullptr) return;
    for (size_t i = 0; i <= entered_.size(); ++i) recorder_->leave_scope();
  }
  ScopeReplay(const ScopeReplay&) = delete;
  ScopeReplay& operator=(const ScopeReplay&) = delete;

  // From now on, the scopes of `path` (inside the call's).
  void enter(const trace::ScopePath& path) {
    if (recorder_ == nullptr) return;
    wanted_.clear();
    for (const trace::ScopeFrame* f = path.get(); f != nullptr; f = f->outer.get()) wanted_.push_back(f);
    std::reverse(wanted_.begin(), wanted_.end());  // outermost first, as entered_
    size_t common = 0;
    while (common < entered_.size() && common < wanted_.size() && entered_[common] == wanted_[common]) ++common;
    while (entered_.size() > common) {
      recorder_->leave_scope();
      entered_.pop_back();
    }
    for (size_t i = common; i < wanted_.size(); ++i) {
      recorder_->enter_scope(wanted_[i]->name);
      entered_.push_back(wanted_[i]);
    }
    held_ = path;  // keeps the frames compared by address alive
  }

 private:
  trace::Recorder* const recorder_;
  std::vector<const trace::ScopeFrame*> entered_;  // outermost first
  std::vector<const trace::ScopeFrame*> wanted_;
  trace::ScopePath held_;
};

NDArray accumulate(NDArray total, NDArray more) {
  return total.is_null() ? std::move(more) : total + more;  // out of place: a gradient may be shared
}

}  // namespace

namespace {

// The walk backward and grad share: pushes the gradient ops from `head` back
// through its graph. on_node(node, dy) sees each node's whole output
// gradient before its gradient function uses it; on_leaf(leaf, g) gets each
// leaf's summed gradient at the end.
template <class OnNode, class OnLeaf>
void propagate(const NDArray& head, const NDArray& head_grad, bool retain_graph, const char* op, OnNode&& on_node,
               OnLeaf&& on_leaf) {
  const ArrayGrad* hg = head.chunk(op)->grad.get();
  if (hg == nullptr || !hg->node) {
    throw std::logic_error(std::string(op) +
        ": this array was not computed by recorded ops: call attach_grad() on the inputs (or make "
        "them with requires_grad=True), and compute the array while recording (inside `with "
        "autograd.record():`, or with PyTorch's grad mode on)");
  }
  if (!head_grad.is_null() && !(head_grad.shape() == head.shape())) {
    throw std::invalid_argument(std::string(op) + ": head gradient " + head_grad.shape().to_string() +
                                " does not match the head " + head.shape().to_string());
  }
  std::vector<std::shared_ptr<Node>> order = reachable(hg->node);
  Pause pause;  // the gradient ops are not themselves recorded
  ScopeReplay scopes(head.context().engine().recorder().get(), op);
  std::unordered_map<const Node*, size_t> index;
  for (size_t i = 0; i < order.size(); ++i) index.emplace(order[i].get(), i);
  std::vector<NDArray> grads(order.size());
  // The seed has the head's element type: a float64 graph stays float64.
  NDArray seed = head_grad;
  if (seed.is_null()) {
    seed = head.dtype() == DType::float32 ? ones(head.context_ptr(), head.shape(), head.device())
                                          : full(head.context_ptr(), head.shape(), 1.0, head.dtype(), head.device());
  }
  grads[index.at(hg->node.get())] = seed;

  std::vector<std::pair<NDArray, NDArray>> leaf_grads;  // the leaf array, its summed gradient
  std::unordered_map<const asyncscope::detail::Chunk*, size_t> leaf_index;
  for (size_t i = 0; i < order.size(); ++i) {
    Node& node = *order[i];
    NDArray dy = std::move(grads[i]);
    if (!dy.is_null()) {
      scopes.enter(node.scope);
      on_node(node, dy);
      const size_t n = node.inputs.size();
      std::unique_ptr<bool[]> wanted(new bool[n]);
      bool any = false;
      for (size_t k = 0; k < n; ++k) any = (wanted[k] = wants_grad(node.inputs[k])) || any;
      if (any) {
        const std::span<const bool> need(wanted.get(), n);
        std::vector<NDArray> dx = node.gradient(dy, need);
        for (size_t k = 0; k < node.inputs.size(); ++k) {
          if (!need[k]) continue;
          const Edge& in = node.inputs[k];
          if (k >= dx.size() || dx[k].is_null() || !(dx[k].shape() == in.shape)) {
            throw std::logic_error(std::string(op) + ": the gradient of op " + std::string(trace::name_of(node.name)) +
                                   " gave " +
                                   (k >= dx.size() || dx[k].is_null() ? std::string("no gradient")
                                                                      : dx[k].shape().to_string()) +
                                   " for its input " + std::to_string(k) + " of shape " + in.shape.to_string());
          }
          if (in.node) {
            NDArray& g = grads[index.at(in.node.get())];
            g = accumulate(std::move(g), std::move(dx[k]));
          } else {
            auto [it, fresh] = leaf_index.emplace(in.leaf.chunk(), leaf_grads.size());
            if (fresh) leaf_grads.emplace_back(in.leaf, NDArray());
            NDArray& g = leaf_grads[it->second].second;
            g = accumulate(std::move(g), std::move(dx[k]));
          }
        }
      }
    }
    if (!retain_graph) {
      // Every node that feeds this one comes later in `order`: this one's
      // gradient function and saved arrays are no longer needed.
      node.used = true;
      node.release();
    }
  }
  grads.clear();
  order.clear();
  scopes.enter(nullptr);  // the leaves' gradients are stored in the call's scope
  for (auto& [leaf_array, g] : leaf_grads) {
    on_leaf(leaf_array, std::move(g));
    g = NDArray();
  }
}

// A gradient another handle can see (the head gradient passed straight
// through an add, one array given to two leaves, or a view) is copied, so
// that a later in-place change of one never changes another.
NDArray own(NDArray g) {
  const bool shared = g.chunk()->handles.load(std::memory_order_relaxed) > 1 || g.is_view();
  return shared ? copy(g) : std::move(g);
}

}  // namespace

void backward(const NDArray& head, const NDArray& head_grad, bool retain_graph) {
  propagate(
      head, head_grad, retain_graph, "backward", [](const Node&, const NDArray&) {},
      [](const NDArray& leaf_array, NDArray g) {
        ArrayGrad& leaf = *leaf_array.chunk()->grad;
        if (leaf.req == GradReq::add || (leaf.req == GradReq::accumulate && !leaf.grad.is_null())) {
          leaf.grad += g;
        } else if (leaf.req == GradReq::write || leaf.req == GradReq::accumulate) {
          leaf.grad = own(std::move(g));
        }
      });
}

std::vector<NDArray> grad(const NDArray& head, std::span<const NDArray> inputs, const NDArray& head_grad,
                          bool retain_graph) {
  // Each input is a leaf (by its chunk) or the output of a recorded op (by its node).
  std::unordered_map<const Node*, std::vector<size_t>> by_node;
  std::unordered_map<const asyncscope::detail::Chunk*, std::vector<size_t>> by_leaf;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const asyncscope::detail::Chunk* c = inputs[i].chunk("grad");
    const ArrayGrad* g = c->grad.get();
    if (g != nullptr && g->node) {
      by_node[g->node.get()].push_back(i);
    } else if (g != nullptr && g->wants_grad()) {
      by_leaf[c].push_back(i);
    } else {
      throw std::invalid_argument("grad: input " + std::to_string(i) +
                                  " does not require a gradient (attach_grad, or requires_grad=True)");
    }
  }
  std::vector<NDArray> out(inputs.size());
  propagate(
      head, head_grad, retain_graph, "grad",
      [&](const Node& node, const NDArray& dy) {
        if (auto it = by_node.find(&node); it != by_node.end()) {
          for (size_t i : it->second) out[i] = copy(dy);
        }
      },
      [&](const NDArray& leaf_array, NDArray g) {
        if (auto it = by_leaf.find(leaf_array.chunk()); it != by_leaf.end()) {
          for (size_t i : it->second) out[i] = it->second.size() > 1 ? copy(g) : own(g);
        }
      });
  return out;
}

}  // namespace asyncscope::autograd
