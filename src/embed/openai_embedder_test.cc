// The OpenAI-compatible embedder against a stand-in server started here: it
// speaks the documented request and reply shapes of POST /v1/embeddings and
// plays one scripted fault per request (429 with Retry-After, 5xx, slow
// replies, truncated and malformed bodies, wrong dimensions and counts).
#include "embed/openai_embedder.h"

#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace engram::embed {
namespace {

using std::chrono::milliseconds;

enum class Reply {
  kOk,
  kReversed,    // the data in reverse order, with their indexes
  k429,         // Retry-After: 2
  k429Forever,  // Retry-After: 3600
  k500,
  k400,
  kSlow,        // answers after 1.5 s
  kTruncated,   // promises more bytes than it sends
  kMalformed,   // not JSON
  kWrongDim,    // one number short
  kWrongCount,  // one embedding short
  kNotANumber,  // a string inside an embedding
  kDuplicateIndex,
};

class StandIn {
 public:
  StandIn() {
    server_.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      Reply reply = Reply::kOk;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(nlohmann::json::parse(req.body));
        auth_.push_back(req.get_header_value("Authorization"));
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        }
      }
      Answer(reply, nlohmann::json::parse(req.body), res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs would be lost.
    while (!server_.is_running()) std::this_thread::sleep_for(milliseconds(1));
  }
  ~StandIn() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  void Script(std::initializer_list<Reply> replies) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.assign(replies);
  }
  std::vector<nlohmann::json> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  std::vector<std::string> auth() {
    std::lock_guard<std::mutex> lock(mutex_);
    return auth_;
  }
  static std::vector<float> VectorOf(const std::string& text, std::size_t dim) {
    std::vector<float> v(dim);
    for (std::size_t j = 0; j < dim; ++j) v[j] = static_cast<float>(text.size()) + 0.5f * j;
    return v;
  }

 private:
  static void Answer(Reply reply, const nlohmann::json& body, httplib::Response& res) {
    const std::size_t dim = body.value("dimensions", 4);
    nlohmann::json data = nlohmann::json::array();
    const auto& input = body["input"];
    for (std::size_t i = 0; i < input.size(); ++i) {
      data.push_back({{"object", "embedding"},
                      {"index", i},
                      {"embedding", VectorOf(input[i].get<std::string>(), dim)}});
    }
    switch (reply) {
      case Reply::kOk:
        break;
      case Reply::kReversed:
        std::reverse(data.begin(), data.end());
        break;
      case Reply::k429:
      case Reply::k429Forever:
        res.status = 429;
        res.set_header("Retry-After", reply == Reply::k429 ? "2" : "3600");
        res.set_content(R"({"error":{"message":"Rate limit reached"}})", "application/json");
        return;
      case Reply::k500:
        res.status = 500;
        res.set_content(R"({"error":{"message":"The server had an error"}})", "application/json");
        return;
      case Reply::k400:
        res.status = 400;
        res.set_content(R"({"error":{"message":"This model's maximum context length is 8192"}})",
                        "application/json");
        return;
      case Reply::kSlow:
        std::this_thread::sleep_for(milliseconds(1500));
        break;
      case Reply::kTruncated:
        res.set_content_provider(100000, "application/json",
                                 [](std::size_t, std::size_t, httplib::DataSink& sink) {
                                   sink.write("{\"data\":[", 9);
                                   return false;  // drops the connection
                                 });
        return;
      case Reply::kMalformed:
        res.set_content("{\"data\": [oops", "application/json");
        return;
      case Reply::kWrongDim:
        data[0]["embedding"].erase(data[0]["embedding"].size() - 1);
        break;
      case Reply::kWrongCount:
        data.erase(data.size() - 1);
        break;
      case Reply::kNotANumber:
        data[0]["embedding"][1] = "x";
        break;
      case Reply::kDuplicateIndex:
        data[1]["index"] = 0;
        break;
    }
    nlohmann::json out = {{"object", "list"},
                          {"data", data},
                          {"model", body["model"]},
                          {"usage", {{"prompt_tokens", 1}, {"total_tokens", 1}}}};
    res.set_content(out.dump(), "application/json");
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::deque<Reply> script_;
  std::vector<nlohmann::json> requests_;
  std::vector<std::string> auth_;
};

class OpenAiTest : public ::testing::Test {
 protected:
  // An embedder whose waits are recorded, not slept.
  StatusOr<std::unique_ptr<OpenAiEmbedder>> Open(std::string params) {
    StatusOr<EmbedderSpec> spec =
        ParseEmbedderSpec("openai:" + server_.url() + "#test-model" + params);
    if (!spec.ok()) return spec.status();
    OpenAiOptions o;
    o.spec = *spec;
    o.sleep = [this](milliseconds d) { waits_.push_back(d.count()); };
    return OpenAiEmbedder::Open(std::move(o));
  }
  std::unique_ptr<OpenAiEmbedder> MustOpen(std::string params) {
    auto e = Open(std::move(params));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  static StatusOr<std::vector<std::vector<float>>> Embed(const OpenAiEmbedder& e,
                                                         std::vector<std::string_view> texts) {
    return e.Embed(texts);
  }

  StandIn server_;
  std::vector<std::int64_t> waits_;
};

TEST_F(OpenAiTest, SendsTheDocumentedRequestInBatches) {
  ::setenv("ENGRAM_TEST_KEY", "sk-test-123", 1);
  auto e = MustOpen("?key_env=ENGRAM_TEST_KEY&dimensions=3&batch=2");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->identity(), (EmbedderIdentity{"openai", "test-model", 3, ""}));
  server_.Script({Reply::kOk, Reply::kReversed, Reply::kOk});
  auto v = Embed(*e, {"a", "bb", "ccc", "dddd", "eeeee"});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*v)[i], StandIn::VectorOf(std::string(i + 1, 'a' + i), 3));  // reordered by index
  }
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0], nlohmann::json::parse(R"({"model":"test-model","input":["a","bb"],)"
                                               R"("encoding_format":"float","dimensions":3})"));
  EXPECT_EQ(requests[2]["input"], nlohmann::json::array({"eeeee"}));
  for (const std::string& a : server_.auth()) EXPECT_EQ(a, "Bearer sk-test-123");
  EXPECT_TRUE(waits_.empty());
}

TEST_F(OpenAiTest, LearnsTheDimensionWhenNotGiven) {
  auto e = MustOpen("");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->identity().dimension, 4u);  // the stand-in's default
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_FALSE(server_.requests()[0].contains("dimensions"));
  EXPECT_EQ(server_.auth()[0], "");  // no key_env: no Authorization
}

TEST_F(OpenAiTest, RetriesHonouringRetryAfterThenBackingOff) {
  auto e = MustOpen("?dimensions=4&retries=3");
  ASSERT_NE(e, nullptr);
  server_.Script({Reply::k429, Reply::k500, Reply::k500, Reply::kOk});
  auto v = Embed(*e, {"x"});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(server_.requests().size(), 4u);
  // The Retry-After's 2 s, then the backoff, which doubles per retry from
  // 500 ms.
  EXPECT_EQ(waits_, (std::vector<std::int64_t>{2000, 1000, 2000}));
}

TEST_F(OpenAiTest, GivesUpNamingTheProviderAndStatus) {
  auto e = MustOpen("?dimensions=4&retries=2");
  ASSERT_NE(e, nullptr);
  server_.Script({Reply::k500, Reply::k500, Reply::k500});
  auto v = Embed(*e, {"x"});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kIoError);
  EXPECT_EQ(v.status().message(), "openai " + server_.url() +
                                      "/embeddings: HTTP 500 after 3 attempts: "
                                      R"({"error":{"message":"The server had an error"}})");
  EXPECT_EQ(waits_, (std::vector<std::int64_t>{500, 1000}));
}

TEST_F(OpenAiTest, ClientErrorsAreNotRetried) {
  auto e = MustOpen("?dimensions=4");
  ASSERT_NE(e, nullptr);
  server_.Script({Reply::k400});
  auto v = Embed(*e, {"x"});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("HTTP 400 after 1 attempt: "), std::string::npos)
      << v.status().message();
  EXPECT_NE(v.status().message().find("maximum context length"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(OpenAiTest, ARetryAfterBeyondTheLimitEndsTheRetries) {
  auto e = MustOpen("?dimensions=4");
  ASSERT_NE(e, nullptr);
  server_.Script({Reply::k429Forever});
  auto v = Embed(*e, {"x"});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("HTTP 429 after 1 attempt: "), std::string::npos);
  EXPECT_NE(v.status().message().find("Retry-After asks for 3600 s"), std::string::npos);
  EXPECT_TRUE(waits_.empty());
}

TEST_F(OpenAiTest, TimeoutsAndTruncatedRepliesAreRetriedThenReported) {
  auto e = MustOpen("?dimensions=4&timeout_ms=300&retries=1");
  ASSERT_NE(e, nullptr);
  server_.Script({Reply::kSlow, Reply::kOk});
  auto v = Embed(*e, {"x"});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(waits_.size(), 1u);

  server_.Script({Reply::kTruncated, Reply::kTruncated});
  v = Embed(*e, {"x"});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kIoError);
  EXPECT_NE(v.status().message().find("/embeddings: no reply after 2 attempts: "),
            std::string::npos)
      << v.status().message();
}

TEST_F(OpenAiTest, RepliesOfTheWrongShapeAreRefused) {
  auto e = MustOpen("?dimensions=4");
  ASSERT_NE(e, nullptr);
  struct Case {
    Reply reply;
    std::string message;
  } cases[] = {
      {Reply::kMalformed, "malformed reply: <root>: not valid JSON"},
      {Reply::kWrongDim, "malformed reply: data[0].embedding: expected 4 numbers, got 3"},
      {Reply::kWrongCount, "malformed reply: data: expected 2 embeddings, got 1"},
      {Reply::kNotANumber,
       "malformed reply: data[0].embedding[1]: expected a finite number, got \"x\""},
      {Reply::kDuplicateIndex,
       "malformed reply: data[1].index: expected a distinct index below 2, got 0"},
  };
  for (const Case& c : cases) {
    server_.Script({c.reply});
    auto v = Embed(*e, {"x", "y"});
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), StatusCode::kCorruption);
    const std::string want = "openai " + server_.url() + "/embeddings: " + c.message;
    EXPECT_EQ(v.status().message().substr(0, want.size()), want) << v.status().message();
  }
}

TEST_F(OpenAiTest, AMissingKeyIsAClearError) {
  ::unsetenv("ENGRAM_TEST_NO_KEY");
  auto e = Open("?key_env=ENGRAM_TEST_NO_KEY&dimensions=4");
  ASSERT_TRUE(e.ok());
  auto v = Embed(**e, {"x"});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(v.status().message(), "openai " + server_.url() +
                                      "/embeddings: the API key variable ENGRAM_TEST_NO_KEY is "
                                      "not set");
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(OpenAiTest, NoServerIsATransportError) {
  OpenAiOptions o;
  o.spec = ParseEmbedderSpec("openai:http://127.0.0.1:1/v1#m?dimensions=2&retries=1").value();
  o.sleep = [](milliseconds) {};
  auto e = OpenAiEmbedder::Open(o);
  ASSERT_TRUE(e.ok());
  const std::string_view texts[] = {"x"};
  auto v = (*e)->Embed(texts);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "openai http://127.0.0.1:1/v1/embeddings: no reply after 2 attempts: cannot connect "
            "(Connection)");
}

TEST_F(OpenAiTest, RefusesBadUrls) {
  for (const char* url : {"ftp://h/v1", "http:///v1", "http://h/v1?x=1", "localhost:8080"}) {
    OpenAiOptions o;
    o.spec.kind = "openai";
    o.spec.url = url;
    o.spec.model = "m";
    o.spec.dimensions = 2;
    auto e = OpenAiEmbedder::Open(o);
    ASSERT_FALSE(e.ok()) << url;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(e.status().message().substr(0, 22), "embedder: openai: url:") << url;
  }
}

}  // namespace
}  // namespace engram::embed
