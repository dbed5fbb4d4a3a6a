// The messages between parent and child: a frame survives encoding, and the
// open and run commands the parent writes are the ones the child reads,
// strictly.
#include <gtest/gtest.h>

#include "child_channel.hpp"
#include "kernelgate/error.hpp"

namespace kg::detail {
namespace {

OpenRequest sample_request() {
  return {.workload = "l1_086_conv_depthwise_separable_2d",
          .suite_file = "/suites/l1_086.json",
          .candidate = "direct_fp32",
          .device = "cpu",
          .axes = {{"batch", 2}, {"width", 19}},
          .seed = 7,
          .thread_order = "reverse",
          .tensor_cores = "hopper",
          .nonce = "abc",
          .model = true};
}

TEST(ChildChannel, TheOpenCommandReadsBackAsWritten) {
  std::vector<char> bytes = encode_message(open_command(sample_request()));
  const std::optional<Message> message = take_message(bytes);
  ASSERT_TRUE(message.has_value());
  EXPECT_TRUE(bytes.empty());
  EXPECT_EQ(message->header.at("command"), "open");
  // Every field survives: written again, the request read back gives the
  // same command (a field the reader dropped would come back as its default).
  const OpenRequest back = read_open_request(JsonReader(message->header, "open"));
  EXPECT_EQ(open_command(back).header, open_command(sample_request()).header);
  // And every member of the request is in the list they share: one left out
  // of it would be written by neither and come back as its default.
  EXPECT_EQ(back.workload, "l1_086_conv_depthwise_separable_2d");
  EXPECT_EQ(back.suite_file, "/suites/l1_086.json");
  EXPECT_EQ(back.candidate, "direct_fp32");
  EXPECT_EQ(back.device, "cpu");
  EXPECT_EQ(back.axes, (Axes{{"batch", 2}, {"width", 19}}));
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.thread_order, "reverse");
  EXPECT_EQ(back.tensor_cores, "hopper");
  EXPECT_EQ(back.nonce, "abc");
  EXPECT_TRUE(back.model);
}

TEST(ChildChannel, AnOpenCommandWithAMissingOrWrongFieldIsRefused) {
  Message message = open_command(sample_request());
  message.header.erase("nonce");
  EXPECT_THROW(read_open_request(JsonReader(message.header, "open")), Error);
  message = open_command(sample_request());
  message.header["seed"] = -1;
  try {
    read_open_request(JsonReader(message.header, "open"));
    FAIL() << "a negative seed was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "open: $.seed: expected an integer >= 0, got number -1");
  }
}

TEST(ChildChannel, TheRunCommandReadsBackAsWritten) {
  const RunRequest sent{.set = "B", .timed = true, .audit = false, .count = true, .sample_blocks = 12,
                        .hardware = "h200"};
  std::vector<char> bytes = encode_message(run_command(sent));
  const std::optional<Message> message = take_message(bytes);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->header.at("command"), "run");
  const RunRequest back = read_run_request(JsonReader(message->header, "run"));
  EXPECT_EQ(run_command(back).header, run_command(sent).header);
  // Every member, none at its default (see the open command's test).
  EXPECT_EQ(back.set, "B");
  EXPECT_TRUE(back.timed);
  EXPECT_FALSE(back.audit);
  EXPECT_TRUE(back.count);
  EXPECT_EQ(back.sample_blocks, 12u);
  EXPECT_EQ(back.hardware, "h200");
}

TEST(ChildChannel, ARunCommandWithAMissingOrMisnamedFieldIsRefused) {
  // A parent that misspells "timed" must not get an untimed run read as its
  // default: the missing field and the unknown one are both refused.
  Message message = run_command({.set = "A", .timed = true});
  message.header.erase("timed");
  message.header["time"] = true;
  EXPECT_THROW(read_run_request(JsonReader(message.header, "run")), Error);
  message = run_command({.set = "A"});
  message.header["timed"] = "yes";
  EXPECT_THROW(read_run_request(JsonReader(message.header, "run")), Error);
}

}  // namespace
}  // namespace kg::detail
