#include "base/json.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/unicode.h"

namespace engram::json {
namespace {

// Builds an ordered_json through nlohmann's SAX interface, so that duplicate
// keys, number classes and nesting can be checked while reading (the DOM
// parser silently keeps the last duplicate and turns big integers into
// doubles).
class StrictBuilder {
 public:
  StrictBuilder(Value* root, const ReadOptions& options)
      : root_(root), max_depth_(options.max_depth), defer_(options.defer_value_faults) {}

  bool null() { return Put(Value(nullptr)); }
  bool boolean(bool v) { return Put(Value(v)); }
  bool number_integer(std::int64_t v) { return Put(Value(v)); }
  bool number_unsigned(std::uint64_t v) {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return Defer(ReadFault::kNumberOutOfRange, HerePath(), std::to_string(v),
                   "integer " + std::to_string(v) + " is outside the int64 range");
    }
    return Put(Value(static_cast<std::int64_t>(v)));
  }
  bool number_float(double v, const std::string& lexeme) {
    if (lexeme.find_first_of(".eE") == std::string::npos) {
      // nlohmann falls back to a double when an integer overflows 64 bits.
      return Defer(ReadFault::kNumberOutOfRange, HerePath(), lexeme,
                   "integer " + lexeme + " is outside the int64 range");
    }
    return Put(Value(v));
  }
  bool string(std::string& v) { return Put(Value(std::move(v))); }
  bool binary(Value::binary_t& /*unused*/) { return Put(Value()); }

  bool start_object(std::size_t /*unused*/) { return Open(Value::object()); }
  bool start_array(std::size_t /*unused*/) { return Open(Value::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& k) {
    Frame& f = frames_.back();
    bool duplicate = false;
    if (f.keys.empty() && f.container->size() < kLinearScanLimit) {
      duplicate = f.container->contains(k);
    } else {
      if (f.keys.empty()) {
        for (const auto& item : f.container->items()) f.keys.insert(item.key());
      }
      duplicate = !f.keys.insert(k).second;
    }
    f.key = std::move(k);
    if (duplicate) {
      discard_next_ = true;  // keep the first value; read and drop this one
      return Defer(ReadFault::kDuplicateKey, HerePath(), f.key, "duplicate key '" + f.key + "'",
                   true);
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    if (error_) return false;
    if (ex.id == 406) {  // out_of_range: number overflow parsing '<lexeme>'
      std::string what = ex.what();
      std::string lexeme;
      std::size_t open = what.find('\'');
      std::size_t close = what.rfind('\'');
      if (open != std::string::npos && close > open)
        lexeme = what.substr(open + 1, close - open - 1);
      // nlohmann stops at this error whatever we answer; Read() may patch
      // the number out and read again (see there).
      overflow_end_ = position;
      return Fail(ReadFault::kNumberOutOfRange, HerePath(), lexeme,
                  "number " + lexeme + " is outside the range of a double");
    }
    return Fail(ReadFault::kSyntax, Path(), "", SyntaxDetail(ex.what(), position));
  }

  std::optional<ReadError>& error() { return error_; }
  std::vector<ReadError>& deferred() { return deferred_; }
  // Where an out-of-range double ended (byte offset), after such an error.
  std::size_t overflow_end() const { return overflow_end_; }

 private:
  static constexpr std::size_t kLinearScanLimit = 16;

  struct Frame {
    Value* container;
    std::string key;                       // pending member name (objects)
    std::unordered_set<std::string> keys;  // filled once an object grows large
  };

  // The path of the value about to be added, built only when a fault needs
  // it: each open container sits under its parent's pending key, or as the
  // parent array's last element.
  Path HerePath() const {
    Path path;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      bool top = i + 1 == frames_.size();
      if (f.container->is_object()) {
        path = path.Key(f.key);
      } else {
        path = path.Index(top ? f.container->size() : f.container->size() - 1);
      }
    }
    return path;
  }

  Value* Place(Value v) {
    if (discard_next_) {  // the value of a duplicate key
      discard_next_ = false;
      discarded_.push_back(std::move(v));
      return &discarded_.back();
    }
    if (frames_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    Frame& f = frames_.back();
    if (f.container->is_object()) {
      // key() has already refused or discarded a repeated key, so append
      // without ordered_map::emplace's linear search for it (quadratic in the
      // member count: a 30k-token vocabulary took minutes).
      auto& members = f.container->get_ref<Value::object_t&>();
      members.emplace_back(f.key, std::move(v));
      return &members.back().second;
    }
    f.container->push_back(std::move(v));
    return &f.container->back();
  }

  bool Put(Value v) {
    Place(std::move(v));
    return true;
  }

  bool Open(Value empty) {
    if (frames_.size() + 1 > max_depth_) {
      return Fail(ReadFault::kTooDeep, HerePath(), "",
                  "nesting deeper than " + std::to_string(max_depth_) + " levels");
    }
    Value* slot = Place(std::move(empty));
    frames_.push_back(Frame{slot, {}, {}});
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  bool Fail(ReadFault fault, Path path, std::string token, std::string detail) {
    if (!error_) error_ = ReadError{fault, std::move(path), std::move(detail), std::move(token)};
    return false;
  }

  // A fault that need not stop reading when the caller defers them; the
  // value read in its place is null. `keyed` faults have already been
  // dealt with (the value is discarded), so nothing is placed for them.
  bool Defer(ReadFault fault, Path path, std::string token, std::string detail,
             bool keyed = false) {
    if (!defer_) return Fail(fault, std::move(path), std::move(token), std::move(detail));
    deferred_.push_back(ReadError{fault, std::move(path), std::move(detail), std::move(token)});
    if (!keyed) Place(Value(nullptr));
    return true;
  }

  // nlohmann words errors as "[json.exception.parse_error.101] parse error at
  // line 1, column 9: syntax error while parsing value - invalid literal; last
  // read: 'NaN'". Keep the reason, then say where; bytes of invalid UTF-8 in
  // the echoed token are escaped so the message itself is valid UTF-8.
  static std::string SyntaxDetail(const std::string& what, std::size_t position) {
    std::string text = what;
    std::string where;
    if (std::size_t b = text.find("] "); b != std::string::npos) text = text.substr(b + 2);
    if (text.rfind("parse error", 0) == 0) {
      std::size_t colon = text.find(": ");
      if (colon != std::string::npos) {
        std::string head = text.substr(0, colon);
        if (std::size_t at = head.find(" at "); at != std::string::npos)
          where = head.substr(at + 4);
        text = text.substr(colon + 2);
      }
    }
    const std::string kPrefix = "syntax error while parsing ";
    if (text.rfind(kPrefix, 0) == 0) {
      std::size_t dash = text.find(" - ");
      if (dash != std::string::npos) text = text.substr(dash + 3);
    }
    if (where.empty()) where = "byte " + std::to_string(position);
    return EscapeInvalidUtf8(text) + " at " + where;
  }

  Value* root_;
  std::size_t max_depth_;
  bool defer_;
  bool discard_next_ = false;
  std::deque<Value> discarded_;  // stable addresses while a discarded container fills
  std::vector<Frame> frames_;
  std::optional<ReadError> error_;
  std::vector<ReadError> deferred_;
  std::size_t overflow_end_ = 0;
};

}  // namespace

ReadResult Read(std::string_view text, const ReadOptions& options) {
  ReadResult result;
  if (options.max_bytes != 0 && text.size() > options.max_bytes) {
    result.error =
        ReadError{ReadFault::kTooLarge, Path(),
                  "input of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                      std::to_string(options.max_bytes) + " bytes",
                  ""};
    return result;
  }
  // nlohmann cannot continue past a number beyond a double's range. When
  // faults are deferred, such a number is patched to `null` in a copy of the
  // text (same length, so positions hold) and the text read again; a few
  // times at most, after which the fault is reported at once.
  constexpr int kMaxPatches = 16;
  std::string patched;
  std::vector<ReadError> overflows;
  std::string_view input = text;
  for (int attempt = 0;; ++attempt) {
    result.value = Value();
    StrictBuilder builder(&result.value, options);
    bool ok = Value::sax_parse(input.begin(), input.end(), &builder,
                               nlohmann::json::input_format_t::json, /*strict=*/true,
                               /*ignore_comments=*/false);
    std::optional<ReadError> error = builder.error();
    if (ok && !error) {
      result.deferred = std::move(builder.deferred());
      break;
    }
    if (!error) error = ReadError{ReadFault::kSyntax, Path(), "invalid JSON", ""};
    std::size_t end = builder.overflow_end();
    std::size_t len = error->token.size();
    if (options.defer_value_faults && error->fault == ReadFault::kNumberOutOfRange &&
        attempt < kMaxPatches && len >= 4 && end >= len && end <= input.size()) {
      if (patched.empty()) patched.assign(text);
      patched.replace(end - len, len, "null" + std::string(len - 4, ' '));
      input = patched;
      overflows.push_back(std::move(*error));
      continue;
    }
    result.error = std::move(error);
    result.value = Value();
    return result;
  }
  for (ReadError& e : overflows) result.deferred.push_back(std::move(e));
  std::stable_sort(result.deferred.begin(), result.deferred.end(),
                   [&](const ReadError& a, const ReadError& b) {
                     return PrecedesInDocument(result.value, a.path, b.path);
                   });
  return result;
}

bool PrecedesInDocument(const Value& doc, const Path& a, const Path& b) {
  const std::vector<Path::Segment> sa = a.segments();
  const std::vector<Path::Segment> sb = b.segments();
  const Value* at = &doc;
  for (std::size_t i = 0;; ++i) {
    if (i == sb.size()) return false;  // b is a or an ancestor of a
    if (i == sa.size()) return true;   // a is an ancestor of b
    if (sa[i] == sb[i]) {
      if (at != nullptr && sa[i].is_index && at->is_array() && sa[i].index < at->size()) {
        at = &(*at)[sa[i].index];
      } else if (at != nullptr && !sa[i].is_index && at->is_object() && at->contains(sa[i].key)) {
        at = &(*at)[sa[i].key];
      } else {
        at = nullptr;
      }
      continue;
    }
    if (sa[i].is_index && sb[i].is_index) return sa[i].index < sb[i].index;
    // Members: by their place in the document; absent ones come last.
    auto position = [at](const Path::Segment& s) {
      std::size_t pos = 0;
      if (at != nullptr && at->is_object() && !s.is_index) {
        for (const auto& item : at->items()) {
          if (item.key() == s.key) return pos;
          ++pos;
        }
      }
      return std::numeric_limits<std::size_t>::max();
    };
    std::size_t pa = position(sa[i]), pb = position(sb[i]);
    if (pa != pb) return pa < pb;
    return sa[i].key < sb[i].key;
  }
}

std::string_view TypeName(const Value& v) {
  switch (v.type()) {
    case Value::value_t::null:
      return "null";
    case Value::value_t::boolean:
      return "bool";
    case Value::value_t::number_integer:
    case Value::value_t::number_unsigned:
      return "int";
    case Value::value_t::number_float:
      return "float";
    case Value::value_t::string:
      return "string";
    case Value::value_t::array:
      return "array";
    case Value::value_t::object:
      return "object";
    default:
      return "binary";
  }
}

std::optional<std::uint64_t> CountOf(const Value& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::uint64_t>();
  return std::nullopt;
}

std::uint64_t GetCount(const Value& v) {
  const std::optional<std::uint64_t> n = CountOf(v);
  if (!n) {
    throw Value::type_error::create(
        302, "type must be a non-negative integer, but is " + std::string(TypeName(v)), &v);
  }
  return *n;
}

std::string Dump(const Value& v) {
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace engram::json
