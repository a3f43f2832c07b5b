// Diagnostic: one located complaint about user input (a filter, a schema, a
// record), already rendered for the user; and Checked<T>, a value or the
// Diagnostic explaining why there is none. Bad input is never a Status.
#ifndef ENGRAM_DIAGNOSTIC_H_
#define ENGRAM_DIAGNOSTIC_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace engram {

struct Diagnostic {
  int code = 400;       // the dialect's error code (3007 for `retrieve`, else 400)
  std::string kind;     // "filter.type_mismatch", "schema.invalid", "record.invalid", ...
  std::string path;     // where, rendered the way the input's dialect writes paths
  std::string message;  // the full rendered message, path included where the dialect puts it
};

// Either a value or the Diagnostic that explains why the input could not
// become one: the return type of every Parse*/Check* function.
template <typename T>
class [[nodiscard]] Checked {
 public:
  Checked(T value) : rep_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Checked(Diagnostic diagnostic) : rep_(std::move(diagnostic)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(rep_); }
  const T& value() const& {
    assert(ok());
    return std::get<T>(rep_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(rep_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(rep_));
  }
  const Diagnostic& diagnostic() const {
    assert(!ok());
    return std::get<Diagnostic>(rep_);
  }

 private:
  std::variant<T, Diagnostic> rep_;
};

}  // namespace engram

#endif  // ENGRAM_DIAGNOSTIC_H_
