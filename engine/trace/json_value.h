// A JSON value, built from json_reader.h's tokens: what an importer reads
// from the small parts of a document one at a time (a trace event and its
// args, a file's metadata, the live stream's hello), never the whole of a
// large file. Numbers keep their type as written (a negative integer, a
// non-negative one, a real with the digits it was written with, so a
// timestamp's decimals stay exact); objects keep their members in document
// order and find() answers with the last of a repeated key, as a JSON
// library's map does.
//
// A value is reused: clear() keeps the storage of its members and their
// strings, so reading one event after another into the same value stops
// allocating once the largest event was read.
//
// Threading: plain data; one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace asyncscope::trace {

class JsonValue {
 public:
  enum class Type : uint8_t { null, boolean, negative, unsigned_integer, real, string, array, object };

  JsonValue() = default;
  JsonValue(const JsonValue& other);
  JsonValue& operator=(const JsonValue& other);
  JsonValue(JsonValue&&) noexcept = default;
  JsonValue& operator=(JsonValue&&) noexcept = default;

  Type type() const noexcept { return type_; }
  bool is_null() const noexcept { return type_ == Type::null; }
  bool is_boolean() const noexcept { return type_ == Type::boolean; }
  bool is_integer() const noexcept { return type_ == Type::negative || type_ == Type::unsigned_integer; }
  bool is_unsigned() const noexcept { return type_ == Type::unsigned_integer; }
  bool is_number() const noexcept { return is_integer() || type_ == Type::real; }
  bool is_string() const noexcept { return type_ == Type::string; }
  bool is_array() const noexcept { return type_ == Type::array; }
  bool is_object() const noexcept { return type_ == Type::object; }
  // Skipped while reading (json_reader's caller chose not to build it): an
  // array or object with no members.
  bool elided() const noexcept { return elided_; }

  bool boolean() const noexcept { return b_; }
  // An integer's value: negative ones as int64, non-negative ones as uint64.
  int64_t as_int64() const noexcept { return type_ == Type::negative ? i_ : static_cast<int64_t>(u_); }
  uint64_t as_uint64() const noexcept { return u_; }
  // Any number as a double.
  double number() const noexcept;
  // An integer value (a real with no fraction counts), or false.
  bool integer_value(int64_t& out) const noexcept;
  // A string's text, or a real's digits as written.
  const std::string& text() const noexcept { return text_; }
  std::string& text() noexcept { return text_; }

  // Arrays and objects: how many members; the i-th member's value (and key).
  size_t size() const noexcept { return members_ ? members_->size : 0; }
  const JsonValue& operator[](size_t i) const noexcept { return members_->values[i]; }
  JsonValue& operator[](size_t i) noexcept { return members_->values[i]; }
  const std::string& key(size_t i) const noexcept { return members_->keys[i]; }
  const JsonValue* begin() const noexcept { return members_ ? members_->values.data() : nullptr; }
  const JsonValue* end() const noexcept { return begin() + size(); }
  // An object's member (the last one of that key), or null.
  const JsonValue* find(std::string_view key) const noexcept;
  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }

  // "null", "boolean", "number", "string", "array", "object".
  const char* type_name() const noexcept;
  // "a number", "an object", ...: for messages.
  std::string a_type() const;
  // Compact JSON text (a real as written); for messages.
  std::string dump() const;

  // Building (json_reader's sink does this).
  void clear() noexcept;  // null, keeping storage
  void set_null() noexcept { clear(); }
  void set_boolean(bool v) noexcept;
  void set_integer(int64_t v) noexcept;
  void set_unsigned(uint64_t v) noexcept;
  void set_real(double v, std::string_view digits);
  void set_string(std::string& text);  // takes the text (swaps it out)
  void set_array(bool elided = false) noexcept;
  void set_object(bool elided = false) noexcept;
  // A new member at the end (null), reusing what an earlier value left.
  JsonValue& push_back();
  JsonValue& push_back(std::string& key);  // objects: takes the key (swaps it out)

 private:
  struct Members {
    std::vector<JsonValue> values;
    std::vector<std::string> keys;  // objects
    size_t size = 0;
  };
  void dump_to(std::string& out) const;

  Type type_ = Type::null;
  bool elided_ = false;
  bool b_ = false;
  union {
    int64_t i_;
    uint64_t u_ = 0;
    double d_;
  };
  std::string text_;
  std::unique_ptr<Members> members_;
};

// Builds one value from json_reader's tokens, for a sink that reads a
// document part by part. Containers nested deeper than `depth` below the
// value (0: the value's own members are kept only if they are not
// containers) are elided: read past, kept as empty and marked elided().
class JsonBuilder {
 public:
  static constexpr int kAll = 1 << 30;
  // Starts a value in `target` (cleared).
  void start(JsonValue& target, int depth = kAll);
  bool building() const noexcept { return !stack_.empty() || target_ != nullptr || skipping_ > 0; }
  // Each returns true when it completed the value.
  bool scalar_null();
  bool scalar_boolean(bool v);
  bool scalar_integer(int64_t v);
  bool scalar_unsigned(uint64_t v);
  bool scalar_real(double v, std::string_view digits);
  bool scalar_string(std::string& text);
  void key(std::string& text);
  void begin(bool object);
  bool end();

 private:
  JsonValue& slot();  // where the next value goes
  bool completed();

  JsonValue* target_ = nullptr;  // set from start() until its first token
  std::vector<JsonValue*> stack_;
  std::string key_;
  int depth_ = kAll;
  int skipping_ = 0;  // open containers being read past
};

// One small document read whole (a hello line, a test's text). Throws
// JsonSyntaxError (json_reader.h) on bad JSON.
JsonValue parse_json_value(std::string_view text);

}  // namespace asyncscope::trace
