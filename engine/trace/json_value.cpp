#include "engine/trace/json_value.h"

#include <cmath>
#include <cstdio>

#include "engine/trace/json_reader.h"

namespace asyncscope::trace {

JsonValue::JsonValue(const JsonValue& other)
    : type_(other.type_), elided_(other.elided_), b_(other.b_), u_(other.u_), text_(other.text_) {
  if (other.size() > 0) {
    members_ = std::make_unique<Members>();
    members_->values.assign(other.begin(), other.end());
    if (other.is_object()) members_->keys.assign(other.members_->keys.begin(), other.members_->keys.begin() + other.size());
    members_->size = other.size();
  }
}

JsonValue& JsonValue::operator=(const JsonValue& other) {
  if (this != &other) *this = JsonValue(other);
  return *this;
}

double JsonValue::number() const noexcept {
  switch (type_) {
    case Type::negative: return static_cast<double>(i_);
    case Type::unsigned_integer: return static_cast<double>(u_);
    case Type::real: return d_;
    default: return 0;
  }
}

bool JsonValue::integer_value(int64_t& out) const noexcept {
  if (type_ == Type::negative) return out = i_, true;
  if (type_ == Type::unsigned_integer && u_ <= static_cast<uint64_t>(INT64_MAX)) {
    return out = static_cast<int64_t>(u_), true;
  }
  if (type_ == Type::real && std::isfinite(d_) && d_ == std::floor(d_) && std::fabs(d_) < 9e18) {
    return out = static_cast<int64_t>(d_), true;
  }
  return false;
}

const JsonValue* JsonValue::find(std::string_view key) const noexcept {
  if (type_ != Type::object || !members_) return nullptr;
  for (size_t i = members_->size; i-- > 0;) {
    if (members_->keys[i] == key) return &members_->values[i];
  }
  return nullptr;
}

const char* JsonValue::type_name() const noexcept {
  switch (type_) {
    case Type::null: return "null";
    case Type::boolean: return "boolean";
    case Type::negative:
    case Type::unsigned_integer:
    case Type::real: return "number";
    case Type::string: return "string";
    case Type::array: return "array";
    case Type::object: return "object";
  }
  return "?";
}

std::string JsonValue::a_type() const {
  const std::string type = type_name();
  return (type[0] == 'o' || type[0] == 'a' ? "an " : "a ") + type;
}

namespace {

void dump_string(const std::string& s, std::string& out) {
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

void JsonValue::dump_to(std::string& out) const {
  switch (type_) {
    case Type::null: out += "null"; return;
    case Type::boolean: out += b_ ? "true" : "false"; return;
    case Type::negative: out += std::to_string(i_); return;
    case Type::unsigned_integer: out += std::to_string(u_); return;
    case Type::real: out += text_; return;
    case Type::string: dump_string(text_, out); return;
    case Type::array:
    case Type::object: {
      const bool object = type_ == Type::object;
      out += object ? '{' : '[';
      for (size_t i = 0; i < size(); ++i) {
        if (i > 0) out += ',';
        if (object) {
          dump_string(members_->keys[i], out);
          out += ':';
        }
        members_->values[i].dump_to(out);
      }
      out += object ? '}' : ']';
      return;
    }
  }
}

std::string JsonValue::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

void JsonValue::clear() noexcept {
  type_ = Type::null;
  elided_ = false;
  if (members_) members_->size = 0;
}

void JsonValue::set_boolean(bool v) noexcept {
  clear();
  type_ = Type::boolean;
  b_ = v;
}

void JsonValue::set_integer(int64_t v) noexcept {
  if (v >= 0) return set_unsigned(static_cast<uint64_t>(v));
  clear();
  type_ = Type::negative;
  i_ = v;
}

void JsonValue::set_unsigned(uint64_t v) noexcept {
  clear();
  type_ = Type::unsigned_integer;
  u_ = v;
}

void JsonValue::set_real(double v, std::string_view digits) {
  clear();
  type_ = Type::real;
  d_ = v;
  text_.assign(digits);
}

void JsonValue::set_string(std::string& text) {
  clear();
  type_ = Type::string;
  text_.swap(text);
}

void JsonValue::set_array(bool elided) noexcept {
  clear();
  type_ = Type::array;
  elided_ = elided;
}

void JsonValue::set_object(bool elided) noexcept {
  clear();
  type_ = Type::object;
  elided_ = elided;
}

JsonValue& JsonValue::push_back() {
  if (!members_) members_ = std::make_unique<Members>();
  Members& m = *members_;
  if (m.size == m.values.size()) m.values.emplace_back();
  JsonValue& v = m.values[m.size++];
  v.clear();
  return v;
}

JsonValue& JsonValue::push_back(std::string& key) {
  JsonValue& v = push_back();
  Members& m = *members_;
  if (m.keys.size() < m.size) m.keys.resize(m.size);
  m.keys[m.size - 1].swap(key);
  return v;
}

// --- JsonBuilder ---------------------------------------------------------------

void JsonBuilder::start(JsonValue& target, int depth) {
  target.clear();
  target_ = &target;
  stack_.clear();
  depth_ = depth;
  skipping_ = 0;
}

JsonValue& JsonBuilder::slot() {
  if (stack_.empty()) {
    JsonValue* t = target_;
    target_ = nullptr;
    return *t;
  }
  JsonValue& parent = *stack_.back();
  return parent.is_object() ? parent.push_back(key_) : parent.push_back();
}

bool JsonBuilder::completed() { return stack_.empty() && target_ == nullptr && skipping_ == 0; }

bool JsonBuilder::scalar_null() {
  if (skipping_ > 0) return false;
  slot().set_null();
  return completed();
}

bool JsonBuilder::scalar_boolean(bool v) {
  if (skipping_ > 0) return false;
  slot().set_boolean(v);
  return completed();
}

bool JsonBuilder::scalar_integer(int64_t v) {
  if (skipping_ > 0) return false;
  slot().set_integer(v);
  return completed();
}

bool JsonBuilder::scalar_unsigned(uint64_t v) {
  if (skipping_ > 0) return false;
  slot().set_unsigned(v);
  return completed();
}

bool JsonBuilder::scalar_real(double v, std::string_view digits) {
  if (skipping_ > 0) return false;
  slot().set_real(v, digits);
  return completed();
}

bool JsonBuilder::scalar_string(std::string& text) {
  if (skipping_ > 0) return false;
  slot().set_string(text);
  return completed();
}

void JsonBuilder::key(std::string& text) {
  if (skipping_ == 0) key_.swap(text);
}

void JsonBuilder::begin(bool object) {
  if (skipping_ > 0) {
    ++skipping_;
    return;
  }
  // The value itself is at depth 0, its members' containers at 1, ...
  const bool elide = static_cast<int>(stack_.size()) > depth_;
  JsonValue& v = slot();
  if (object) v.set_object(elide); else v.set_array(elide);
  if (elide) {
    skipping_ = 1;
  } else {
    stack_.push_back(&v);
  }
}

bool JsonBuilder::end() {
  if (skipping_ > 0) {
    --skipping_;
    return completed();
  }
  stack_.pop_back();
  return completed();
}

JsonValue parse_json_value(std::string_view text) {
  struct Sink final : JsonSink {
    JsonBuilder b;
    void null() override { b.scalar_null(); }
    void boolean(bool v) override { b.scalar_boolean(v); }
    void integer(int64_t v) override { b.scalar_integer(v); }
    void unsigned_integer(uint64_t v) override { b.scalar_unsigned(v); }
    void real(double v, std::string_view t) override { b.scalar_real(v, t); }
    void string(std::string& t) override { b.scalar_string(t); }
    void key(std::string& t) override { b.key(t); }
    void begin_object() override { b.begin(true); }
    void end_object() override { b.end(); }
    void begin_array() override { b.begin(false); }
    void end_array() override { b.end(); }
  };
  JsonValue value;
  Sink sink;
  sink.b.start(value);
  read_json(text, sink);
  return value;
}

}  // namespace asyncscope::trace
