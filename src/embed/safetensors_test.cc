#include "embed/safetensors.h"

#include <cmath>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "embed/digest.h"

namespace engram::embed {
namespace {

constexpr const char* kModels = "src/embed/testdata/model2vec/";

std::string File(const std::string& header, const std::string& data,
                 std::uint64_t length_override = 0) {
  std::string out(8, '\0');
  const std::uint64_t n = length_override != 0 ? length_override : header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (8 * i));
  return out + header + data;
}

std::string Refusal(const std::string& bytes) {
  StatusOr<Safetensors> st = Safetensors::Parse(bytes, "m.safetensors");
  EXPECT_FALSE(st.ok());
  if (st.ok()) return "";
  EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument);
  return st.status().message();
}

TEST(SafetensorsTest, ReadsEveryShippedModel) {
  struct Case {
    const char* dir;
    const char* tensor;
    Dtype dtype;
    std::size_t rows, cols;
  } cases[] = {
      {"test-model-float32", "embeddings", Dtype::kF32, 29528, 2},
      {"test-model-float16", "embeddings", Dtype::kF16, 29528, 2},
      {"test-model-int8", "embeddings", Dtype::kI8, 29528, 2},
      {"test-model-sentence-transformers", "embedding.weight", Dtype::kF32, 29528, 2},
      {"test-model-vocab-quantized", "embeddings", Dtype::kF32, 128, 64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dir);
    const std::string path = std::string(kModels) + c.dir + "/model.safetensors";
    StatusOr<std::string> bytes = ReadFile(path, 1 << 24);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    StatusOr<Safetensors> st = Safetensors::Parse(std::move(bytes).value(), path);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    const TensorInfo* t = st->Find(c.tensor);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->dtype, c.dtype);
    EXPECT_EQ(t->shape, (std::vector<std::size_t>{c.rows, c.cols}));
    EXPECT_EQ(st->ToFloats(*t).size(), c.rows * c.cols);
  }
}

TEST(SafetensorsTest, ConvertsEachDtype) {
  // F16 1.5 = 0x3E00, BF16 -2 = 0xC000, I8 -3, I32 7, F64 0.25.
  std::string data;
  auto put = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) data += static_cast<char>(v >> (8 * i));
  };
  put(0x3E00, 2);
  put(0xC000, 2);
  put(static_cast<std::uint8_t>(-3), 1);
  put(7, 4);
  std::uint64_t quarter;
  const double q = 0.25;
  std::memcpy(&quarter, &q, 8);
  put(quarter, 8);
  const std::string header = R"({"h":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},)"
                             R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]},)"
                             R"("i":{"dtype":"I8","shape":[1],"data_offsets":[4,5]},)"
                             R"("j":{"dtype":"I32","shape":[],"data_offsets":[5,9]},)"
                             R"("d":{"dtype":"F64","shape":[1,1],"data_offsets":[9,17]},)"
                             R"("__metadata__":{"format":"pt"}})";
  StatusOr<Safetensors> st = Safetensors::Parse(File(header, data), "x");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->ToFloats(*st->Find("h")), std::vector<float>{1.5f});
  EXPECT_EQ(st->ToFloats(*st->Find("b")), std::vector<float>{-2.0f});
  EXPECT_EQ(st->ToFloats(*st->Find("i")), std::vector<float>{-3.0f});
  EXPECT_EQ(st->ToInts(*st->Find("j")), std::vector<std::int64_t>{7});
  EXPECT_EQ(st->ToFloats(*st->Find("d")), std::vector<float>{0.25f});
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604644775390625e-8f);  // the smallest subnormal
  EXPECT_EQ(HalfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
}

TEST(SafetensorsTest, RefusesBadHeaderLength) {
  EXPECT_EQ(Refusal("abc"), "m.safetensors: shorter than the 8-byte header length (3 bytes)");
  EXPECT_EQ(Refusal(File("{}", "", 1000)),
            "m.safetensors: header length: 1000 is past the end of the file (10 bytes)");
  EXPECT_EQ(Refusal(File("{}", "", std::uint64_t{1} << 40)),
            "m.safetensors: header length: 1099511627776 is beyond the limit of 104857600 bytes");
  EXPECT_EQ(Refusal(File(" {}", "")), "m.safetensors: header: does not start with '{'");
  EXPECT_NE(Refusal(File("{\"a\":", "")).find("m.safetensors: header: <root>: not valid JSON"),
            std::string::npos);
  EXPECT_EQ(Refusal(File("[]", "")), "m.safetensors: header: does not start with '{'");
}

TEST(SafetensorsTest, RefusesOffsetsPastTheEnd) {
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234")),
            "m.safetensors: header: tensor 't': data_offsets: end 8 is past the data (4 bytes)");
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", "1234")),
            "m.safetensors: header: tensor 't': data_offsets: begin 4 is after end 0");
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,-4]}})", "1234")),
            "m.safetensors: header: tensor 't': data_offsets: expected [begin, end] as "
            "non-negative integers, got [0,-4]");
}

TEST(SafetensorsTest, RefusesUnknownDtype) {
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", "1")),
            "m.safetensors: header: tensor 't': dtype: unknown \"F8_E4M3\" (known: F64, F32, "
            "F16, BF16, I64, I32, I8)");
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":3,"shape":[1],"data_offsets":[0,1]}})", "1")),
            "m.safetensors: header: tensor 't': dtype: unknown 3 (known: F64, F32, F16, BF16, "
            "I64, I32, I8)");
}

TEST(SafetensorsTest, RefusesShapeMismatch) {
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "12345678")),
            "m.safetensors: header: tensor 't': shape mismatch: dtype F32 x shape [3] is 12 "
            "bytes, data_offsets hold 8");
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "1234")),
            "m.safetensors: header: tensor 't': shape[0]: expected a non-negative integer, got -1");
  EXPECT_EQ(Refusal(File(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296],)"
                         R"("data_offsets":[0,4]}})",
                         "1234")),
            "m.safetensors: header: tensor 't': shape: the tensor's byte size overflows");
}

TEST(SafetensorsTest, RefusesOverlapsGapsAndOddMembers) {
  EXPECT_EQ(Refusal(File(R"({"a":{"dtype":"I8","shape":[2],"data_offsets":[0,2]},)"
                         R"("b":{"dtype":"I8","shape":[2],"data_offsets":[1,3]}})",
                         "123")),
            "m.safetensors: header: tensor 'b': data_offsets: overlaps the tensor before it "
            "(begin 1 < 2)");
  EXPECT_EQ(Refusal(File(R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[1,2]}})", "12")),
            "m.safetensors: header: tensor 'a': data_offsets: leaves bytes 0..1 of the data "
            "unused");
  EXPECT_EQ(Refusal(File(R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}})", "12")),
            "m.safetensors: data: 1 bytes after the last tensor are unused");
  EXPECT_EQ(Refusal(File(R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1],"x":1}})", "1")),
            "m.safetensors: header: tensor 'a': unknown member 'x'");
  EXPECT_EQ(Refusal(File(R"({"a":{"dtype":"I8","shape":[1]}})", "1")),
            "m.safetensors: header: tensor 'a': needs dtype, shape and data_offsets");
  EXPECT_EQ(Refusal(File(R"({"__metadata__":{"k":1}})", "")),
            "m.safetensors: header: __metadata__: k: expected a string");
  EXPECT_NE(Refusal(File(R"({"a":1,"a":2})", ""))
                .find("m.safetensors: header: a: not valid "
                      "JSON"),
            std::string::npos);
}

}  // namespace
}  // namespace engram::embed
