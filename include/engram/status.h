// Status and StatusOr: how every engram operation reports operational failure.
//
// Bad user input (a filter, a query, a record) is reported with a located
// diagnostic instead (see engram/filter.h); Status is for everything that can
// fail while doing the work: files, storage, resources. Modelled on LevelDB's
// include/leveldb/status.h and abseil's status codes.
#ifndef ENGRAM_STATUS_H_
#define ENGRAM_STATUS_H_

#include <cassert>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace engram {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller passed something unusable
  kNotFound,            // a named thing (file, collection, record) does not exist
  kAlreadyExists,       // creating something that exists
  kFailedPrecondition,  // the system is not in a state where this can run
  kPermissionDenied,    // the caller's scope does not allow it (SEARCH.md §6)
  kResourceExhausted,   // a limit was hit
  kDeadlineExceeded,    // the request's deadline passed before the work was done
  kAborted,             // another writer changed what the operation read: retry it
  kIoError,             // the operating system refused a read or write
  kCorruption,          // stored data is not what it should be
  kUnimplemented,
  kInternal,  // a broken invariant; a bug
};

// Returns a stable lower-case name for `code` ("invalid_argument", ...).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status ResourceExhausted(std::string m) {
    return {StatusCode::kResourceExhausted, std::move(m)};
  }
  static Status DeadlineExceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }
  static Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
  static Status PermissionDenied(std::string m) {
    return {StatusCode::kPermissionDenied, std::move(m)};
  }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns this status with "context: " prepended to the message; OK stays OK.
  Status WithContext(std::string_view context) const;

  // "invalid_argument: message", or "ok".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or a non-OK Status. Accessing the value of an error is a bug
// (asserted in debug builds).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : rep_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(rep_).ok() && "StatusOr built from an OK status");
  }
  StatusOr(const T& value) : rep_(value) {}        // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : rep_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, StatusOr>>>
  StatusOr(U&& value) : rep_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(rep_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(rep_); }

  T& value() & {
    assert(ok());
    return std::get<T>(rep_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(rep_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(rep_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> rep_;
};

}  // namespace engram

#endif  // ENGRAM_STATUS_H_
