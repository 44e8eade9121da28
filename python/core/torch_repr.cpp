#include "python/core/torch_repr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace asyncscope::python {
namespace {

// PyTorch's default print options.
constexpr int64_t kThreshold = 1000;  // more values than this are summarised
constexpr int64_t kEdgeItems = 3;     // values kept at each end of a summarised dimension
constexpr size_t kLineWidth = 80;
constexpr const char* kPrefix = "tensor(";
constexpr size_t kIndent = 7;  // the prefix's length: rows line up under the first one

enum class Notation { whole, fixed, scientific };

// How every value of one tensor is written: one notation and one width for
// all, chosen from the values that will be shown (finite, non-zero).
class ValueFormat {
 public:
  ValueFormat(const std::vector<double>& shown, TensorValues kind) : kind_(kind) {
    double lo = 0, hi = 0;
    bool any = false, whole = true;
    for (double v : shown) {
      if (!std::isfinite(v) || v == 0.0) continue;
      const double a = std::fabs(static_cast<double>(v));
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, a) : a;
      any = true;
      whole = whole && std::ceil(v) == v;
    }
    if (any) {
      const bool wide = hi / lo > 1000.0 || hi > 1e8;
      if (whole) {
        notation_ = wide ? Notation::scientific : Notation::whole;
      } else {
        notation_ = wide || lo < 1e-4 ? Notation::scientific : Notation::fixed;
      }
    }
    for (double v : shown) {
      if (kind_ != TensorValues::floating || (std::isfinite(v) && v != 0.0)) width_ = std::max(width_, bare(v).size());
    }
  }

  size_t width() const noexcept { return width_; }

  std::string operator()(double v) const {
    std::string s = bare(v);
    if (s.size() < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string bare(double v) const {
    if (kind_ == TensorValues::boolean) return v != 0.0 ? "True" : "False";
    if (kind_ == TensorValues::integer) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.0f", v);
      return buf;
    }
    if (std::isnan(v)) return "nan";  // never "-nan", as Python writes it
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    const char* pattern = notation_ == Notation::whole ? "%.0f." : notation_ == Notation::fixed ? "%.4f" : "%.4e";
    char buf[48];
    std::snprintf(buf, sizeof(buf), pattern, static_cast<double>(v));
    return buf;
  }

  TensorValues kind_;
  Notation notation_ = Notation::whole;
  size_t width_ = 1;
};

// The tensor's values in row-major order, walked one dimension at a time.
class Layout {
 public:
  Layout(const Shape& shape, std::span<const double> values, bool summarise)
      : shape_(shape), values_(values), summarise_(summarise) {}

  // The indices of dimension `dim` that are shown; -1 stands for the "..." between the two ends.
  std::vector<int64_t> shown_indices(int dim) const {
    const int64_t n = shape_[dim];
    std::vector<int64_t> out;
    if (summarise_ && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) out.push_back(i);
      out.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) out.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) out.push_back(i);
    }
    return out;
  }

  int64_t stride(int dim) const {
    int64_t s = 1;
    for (int d = dim + 1; d < shape_.ndim(); ++d) s *= shape_[d];
    return s;
  }

  void collect_shown(int dim, int64_t offset, std::vector<double>& out) const {
    if (dim == shape_.ndim()) {
      out.push_back(values_[static_cast<size_t>(offset)]);
      return;
    }
    for (int64_t i : shown_indices(dim)) {
      if (i >= 0) collect_shown(dim + 1, offset + i * stride(dim), out);
    }
  }

  std::string text(int dim, int64_t offset, size_t indent, const ValueFormat& format) const {
    if (shape_.ndim() == 0) return format(values_[0]);
    const std::vector<int64_t> shown = shown_indices(dim);
    std::vector<std::string> items;
    const bool last_dim = dim == shape_.ndim() - 1;
    for (int64_t i : shown) {
      if (i < 0) {
        items.emplace_back(last_dim ? " ..." : "...");
      } else if (last_dim) {
        items.push_back(format(values_[static_cast<size_t>(offset + i)]));
      } else {
        items.push_back(text(dim + 1, offset + i * stride(dim), indent + 1, format));
      }
    }
    std::string out = "[";
    if (last_dim) {
      // As many values per line as fit in the line width; the rest wrap under the first.
      const size_t per_line = std::max<size_t>(1, (kLineWidth - std::min(indent, kLineWidth)) / (format.width() + 2));
      for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0 && k % per_line == 0) {
          out.append(",\n").append(indent + 1, ' ');
        } else if (k > 0) {
          out += ", ";
        }
        out += items[k];
      }
    } else {
      // Rows one under another; one blank line more between blocks of each higher dimension.
      std::string separator = ",";
      separator.append(static_cast<size_t>(shape_.ndim() - dim - 1), '\n').append(indent + 1, ' ');
      for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0) out += separator;
        out += items[k];
      }
    }
    return out + "]";
  }

 private:
  const Shape& shape_;
  std::span<const double> values_;
  bool summarise_;
};

std::string size_suffix(const Shape& shape) {
  std::string s = "size=(";
  for (int d = 0; d < shape.ndim(); ++d) s.append(d > 0 ? ", " : "").append(std::to_string(shape[d]));
  return s + (shape.ndim() == 1 ? ",)" : ")");
}

}  // namespace

std::string torch_tensor_text(const Shape& shape, std::span<const double> values, TensorValues kind,
                              const std::vector<std::string>& suffixes) {
  std::string out = kPrefix;
  std::vector<std::string> all_suffixes;
  if (shape.size() == 0) {
    out += "[]";
    if (shape.ndim() != 1) all_suffixes.push_back(size_suffix(shape));
  } else {
    const Layout layout(shape, values, shape.size() > kThreshold);
    std::vector<double> shown;
    layout.collect_shown(0, 0, shown);
    out += layout.text(0, 0, kIndent, ValueFormat(shown, kind));
  }
  all_suffixes.insert(all_suffixes.end(), suffixes.begin(), suffixes.end());
  // A suffix goes on the last line if it fits there, else on a line of its own.
  const size_t newline = out.rfind('\n');
  size_t line = (newline == std::string::npos ? out.size() : out.size() - newline - 1) + 2;
  for (const std::string& suffix : all_suffixes) {
    if (line + suffix.size() + 2 > kLineWidth) {
      out.append(",\n").append(kIndent, ' ').append(suffix);
      line = kIndent + suffix.size();
    } else {
      out += ", " + suffix;
      line += suffix.size() + 2;
    }
  }
  return out + ")";
}

}  // namespace asyncscope::python
