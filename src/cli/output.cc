#include "cli/output.h"

namespace engram::cli {

Json DiagnosticJson(const Diagnostic& d) {
  Json e = Json::object();
  e["code"] = d.code;
  e["kind"] = d.kind;
  e["path"] = d.path;
  e["message"] = d.message;
  return e;
}

int WriteRejected(std::ostream& out, const Json& error) {
  Json doc = Json::object();
  doc["ok"] = false;
  doc["error"] = error;
  out << Dump(doc) << '\n';
  return 1;
}

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace engram::cli
