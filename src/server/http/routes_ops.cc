// The operational routes: probes, metrics, the OpenAPI document, and /mcp.
#include "server/http/api.h"
#include "server/http/openapi.h"

namespace engram::server::http {

HttpResponse Api::Livez() {
  return JsonResponse(200, {{"status", "ok"}});
}

HttpResponse Api::Readyz() {
  if (draining_) {
    Problem p = Overloaded("the server is shutting down");
    p.kind = "not_ready";
    return ProblemResponse(p);
  }
  // A node of a shared store that cannot follow it would answer from a
  // stale view: the load balancer sends the traffic elsewhere.
  if (Status health = engine_->Health(); !health.ok()) {
    Problem p = Overloaded("the store cannot be followed: " + health.message());
    p.kind = "not_ready";
    return ProblemResponse(p);
  }
  return JsonResponse(200, {{"status", "ready"}});
}

HttpResponse Api::MetricsText() {
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = metrics_.Render(engine_);
  return r;
}

HttpResponse Api::OpenApi() {
  HttpResponse r;
  r.body = std::string(OpenApiJson());
  return r;
}

HttpResponse Api::Mcp(const Call& call) {
  mcp::HttpExchange exchange;
  exchange.method = call.request.method;
  exchange.headers = call.request.headers;  // names lower-cased already
  exchange.body = call.request.body;
  mcp::HttpReply reply = mcp::HandleHttp(*mcp_, exchange, call.principal, &call.bounds);
  HttpResponse r;
  r.status = reply.status;
  r.content_type = reply.content_type;
  r.headers = std::move(reply.headers);
  r.body = std::move(reply.body);
  return r;
}

}  // namespace engram::server::http
