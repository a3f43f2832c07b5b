// Reading one JSON object of a request body field by field, with every bound
// checked and every fault located by its JSONPath (`$.records[3]`,
// `$.k`). The first fault wins and is kept as a 400 Problem; later reads are
// no-ops, so decoders read all fields and check once at the end.
#ifndef ENGRAM_SERVER_HTTP_JSON_READER_H_
#define ENGRAM_SERVER_HTTP_JSON_READER_H_

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/http/problem.h"

namespace engram::server::http {

class ObjectReader {
 public:
  // `object` must outlive the reader; a non-object fails at once at `path`.
  ObjectReader(const nlohmann::json& object, std::string path);

  bool ok() const { return !problem_.has_value(); }
  const Problem& problem() const { return *problem_; }
  void Fail(Problem problem);
  void Fail(const std::string& key, std::string message);

  std::string PathOf(std::string_view key) const;

  // The member, or nullptr when absent or JSON null; marks it known.
  const nlohmann::json* Get(std::string_view key);
  // A required member: fails when it is absent or null.
  const nlohmann::json* Require(std::string_view key);

  // Each reader leaves `out` unchanged when the member is absent or null and
  // returns whether it is present and valid.
  bool String(std::string_view key, std::string* out, std::size_t max_bytes);
  bool Size(std::string_view key, std::size_t* out, std::size_t min, std::size_t max);
  bool Number(std::string_view key, double* out, double min, double max);
  bool Bool(std::string_view key, bool* out);
  // A non-empty array of finite numbers that fit a float, at most `max` long.
  bool Vector(std::string_view key, std::optional<std::vector<float>>* out, std::size_t max);
  // A string that must be one of `names`.
  bool Enum(std::string_view key, std::string* out, const std::vector<std::string_view>& names);

  // Fails on the first member that no reader asked for.
  bool Finish();

 private:
  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string, std::less<>> known_;
  std::optional<Problem> problem_;
};

// "a string", "an array", ... for messages.
std::string JsonTypeName(const nlohmann::json& value);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_JSON_READER_H_
