// The revision a run outside CI records: the source tree's HEAD, marked
// "-dirty" when the tree holds changes HEAD does not, on a scratch git repo.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "runner_internal.hpp"

namespace kg {
namespace {

namespace fs = std::filesystem;

class ScratchRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kg_git_revision_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (std::system("git --version > /dev/null 2>&1") != 0) GTEST_FAIL() << "git is not installed";
  }
  void TearDown() override { fs::remove_all(dir_); }
  int git(const std::string& arguments) const {
    return std::system(("git -C '" + dir_.string() + "' -c user.name=kg -c user.email=kg@localhost " +
                        arguments + " > /dev/null 2>&1")
                           .c_str());
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  std::string head() const {
    std::string sha(40, '?');
    if (std::FILE* pipe = popen(("git -C '" + dir_.string() + "' rev-parse HEAD").c_str(), "r")) {
      if (std::fread(sha.data(), 1, 40, pipe) != 40) sha.clear();
      pclose(pipe);
    }
    return sha;
  }
  fs::path dir_;
};

TEST_F(ScratchRepo, OutsideAWorkTreeNothingIsRecorded) {
  EXPECT_EQ(detail::git_revision_of_tree(dir_.string()), "");
}

TEST_F(ScratchRepo, ACleanTreeIsItsHeadAndAChangedOneIsDirty) {
  ASSERT_EQ(git("init -q"), 0);
  write("kernel.cu", "v1\n");
  write(".gitignore", "build/\n");
  ASSERT_EQ(git("add -A"), 0);
  ASSERT_EQ(git("commit -q -m first"), 0);
  const std::string sha = head();
  ASSERT_EQ(sha.size(), 40u);
  EXPECT_EQ(detail::git_revision_of_tree(dir_.string()), sha);

  fs::create_directories(dir_ / "build");
  write("build/out.o", "ignored\n");
  EXPECT_EQ(detail::git_revision_of_tree(dir_.string()), sha) << "ignored files do not count";

  write("kernel.cu", "v2\n");
  EXPECT_EQ(detail::git_revision_of_tree(dir_.string()), sha + "-dirty") << "a modified file";
  ASSERT_EQ(git("checkout -q -- kernel.cu"), 0);
  write("new_candidate.cu", "v1\n");
  EXPECT_EQ(detail::git_revision_of_tree(dir_.string()), sha + "-dirty") << "an untracked file";
}

}  // namespace
}  // namespace kg
