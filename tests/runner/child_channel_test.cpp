// The messages between parent and child: a frame survives encoding, the
// commands the parent writes are the ones the child reads, and the replies
// the child writes the ones the parent reads, strictly.
#include <gtest/gtest.h>

#include "child_channel.hpp"
#include "kernelgate/error.hpp"
#include "support/error_of.hpp"

namespace kg::detail {
namespace {

OpenRequest sample_request() {
  return {.workload = "l1_086_conv_depthwise_separable_2d",
          .suite_file = "/suites/l1_086.json",
          .candidate = "direct_fp32",
          .device = "cpu",
          .axes = {{"batch_size", 2}, {"width", 19}},
          .seed_a = 7,
          .seed_b = 8,
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
  EXPECT_EQ(back.axes, (Axes{{"batch_size", 2}, {"width", 19}}));
  EXPECT_EQ(back.seed_a, 7u);
  EXPECT_EQ(back.seed_b, 8u);
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
  message.header["seed_b"] = -1;
  EXPECT_EQ(test::error_of([&] { read_open_request(JsonReader(message.header, "open")); }),
            "open: $.seed_b: expected an integer >= 0, got number -1");
}

TEST(ChildChannel, TheRunCommandReadsBackAsWritten) {
  const RunRequest sent{.set = "fresh", .fresh_seed = 99, .timed = true, .audit = false, .count = true,
                        .sample_blocks = 12, .hardware = "h200", .empty_kernel = true};
  std::vector<char> bytes = encode_message(run_command(sent));
  const std::optional<Message> message = take_message(bytes);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->header.at("command"), "run");
  const RunRequest back = read_run_request(JsonReader(message->header, "run"));
  EXPECT_EQ(run_command(back).header, run_command(sent).header);
  // Every member, none at its default (see the open command's test).
  EXPECT_EQ(back.set, "fresh");
  EXPECT_EQ(back.fresh_seed, 99u);
  EXPECT_TRUE(back.timed);
  EXPECT_FALSE(back.audit);
  EXPECT_TRUE(back.count);
  EXPECT_EQ(back.sample_blocks, 12u);
  EXPECT_EQ(back.hardware, "h200");
  EXPECT_TRUE(back.empty_kernel);
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

// Through the frame and back, as the parent receives it.
Message sent(const Message& message) {
  std::vector<char> bytes = encode_message(message);
  return take_message(bytes).value();
}

RunReply sample_run_reply() {
  return {.stream = "stream 7",
          .guards = "the guard band after output y was written",
          .inputs = "input x",
          .output_hash = 0x9f2c00000000beefull,
          .scan = {.poisoned = 3, .first_poisoned = 10, .non_finite = 2, .first_non_finite = 11},
          .time_ms = 0.25,
          .sm_clock_mhz = 1755,
          .sm_clock_max_mhz = 1980,
          .sm_clock_set_mhz = 1410,
          .clock_event_reasons = 0x6,
          .busy_after_ms = 1.5,
          .hold_expired = true,
          .counted = true,
          .counters = {{"global_load_requests", 12}, {"barriers", 3}},
          .counters_unavailable = "not counted"};
}

TEST(ChildChannel, TheRepliesReadBackAsWritten) {
  const RunReply run = read_run_reply(sent(run_reply(sample_run_reply())));
  EXPECT_EQ(run_reply(run).header, run_reply(sample_run_reply()).header);
  // Every member, none at its default, the nested scan and counters included.
  EXPECT_EQ(run.stream, "stream 7");
  EXPECT_EQ(run.guards, "the guard band after output y was written");
  EXPECT_EQ(run.inputs, "input x");
  EXPECT_EQ(run.output_hash, 0x9f2c00000000beefull);
  EXPECT_EQ(run.scan.poisoned, 3);
  EXPECT_EQ(run.scan.first_poisoned, 10);
  EXPECT_EQ(run.scan.non_finite, 2);
  EXPECT_EQ(run.scan.first_non_finite, 11);
  EXPECT_EQ(run.time_ms, 0.25);
  EXPECT_EQ(run.sm_clock_mhz, 1755);
  EXPECT_EQ(run.sm_clock_max_mhz, 1980);
  EXPECT_EQ(run.sm_clock_set_mhz, 1410);
  EXPECT_EQ(run.clock_event_reasons, 0x6);
  EXPECT_EQ(run.busy_after_ms, 1.5);
  EXPECT_TRUE(run.hold_expired);
  EXPECT_TRUE(run.counted);
  EXPECT_EQ(run.counters, (std::vector<std::pair<std::string, std::uint64_t>>{{"global_load_requests", 12},
                                                                               {"barriers", 3}}));
  EXPECT_EQ(run.counters_unavailable, "not counted");

  const OpenReply open = read_open_reply(sent(open_reply(
      {.unsupported = "too wide", .numel = 96, .workspace_bytes = 4096, .overlap = "the workspace overlaps input x"})));
  EXPECT_EQ(open.unsupported, "too wide");
  EXPECT_EQ(open.numel, 96);
  EXPECT_EQ(open.workspace_bytes, 4096u);
  EXPECT_EQ(open.overlap, "the workspace overlaps input x");

  ErrorStats stats;
  stats.checked = 5;
  stats.max_abs = 0.5;
  const Message strict_message = sent(strict_reply({.stats = stats, .summary = "cuDNN, strict FP32"}, {1.0f, 2.0f}));
  const StrictReply strict = read_strict_reply(strict_message);
  EXPECT_EQ(strict.stats.checked, 5);
  EXPECT_EQ(strict.stats.max_abs, 0.5);
  EXPECT_EQ(strict.summary, "cuDNN, strict FP32");
  EXPECT_EQ(strict_message.values, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(read_overhead_reply(sent(overhead_reply({.times_ms = {0.01, 0.02}}))).times_ms,
            (std::vector<double>{0.01, 0.02}));
}

TEST(ChildChannel, AForgedOrGarbledReplyIsRefused) {
  // A candidate writing its own verdict into the channel, a reply with a
  // member missing, and one of the wrong type: none is read as a run.
  Message forged;
  forged.header = {{"outcome", "passed"}};
  EXPECT_THROW(read_run_reply(forged), Error);
  Message missing = run_reply(sample_run_reply());
  missing.header["scan"].erase("non_finite");
  EXPECT_EQ(test::error_of([&] { read_run_reply(missing); }),
            "its reply to the runner: $.scan.non_finite: missing required field");
  Message wrong = run_reply(sample_run_reply());
  wrong.header["counters"] = "12 requests";
  EXPECT_THROW(read_run_reply(wrong), Error);
}

TEST(ChildChannel, TheSmallCommandsReadBackAsWritten) {
  const ValuesRequest values =
      read_values_request(JsonReader(sent(values_command({.all = true, .indices = {4, 9}})).header, "values"));
  EXPECT_TRUE(values.all);
  EXPECT_EQ(values.indices, (std::vector<std::int64_t>{4, 9}));
  const StrictRequest strict = read_strict_request(
      JsonReader(sent(strict_command({.indices = {3}, .atol = 1e-5, .rtol = 1e-4, .rel_l2 = 1e-3})).header, "strict"));
  EXPECT_EQ(strict.indices, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(strict.atol, 1e-5);
  EXPECT_EQ(strict.rtol, 1e-4);
  EXPECT_EQ(strict.rel_l2, 1e-3);
  const Message warmup = sent(count_command("warmup", {.count = 7}));
  EXPECT_EQ(warmup.header.at("command"), "warmup");
  EXPECT_EQ(read_count_request(JsonReader(warmup.header, "warmup")).count, 7);
  Message misnamed = count_command("overhead", {.count = 7});
  misnamed.header["counts"] = 7;
  EXPECT_THROW(read_count_request(JsonReader(misnamed.header, "overhead")), Error);
}

}  // namespace
}  // namespace kg::detail
