// Files of the report concern: atomic writes, listing and reading reports,
// timestamps.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {

std::filesystem::path write_temporary_beside(const std::filesystem::path& path, const std::string& text,
                                             unsigned mode) {
  // Beside the target so the rename stays on one file system, which is what
  // makes it atomic; a hidden name that .gitignore covers
  // (".<name>.kernelgate-tmp.XXXXXX"), so one left by a kill is never committed.
  std::string name = ".";  // built piecewise: GCC 12 warns falsely on "." + std::string
  name += path.filename().string();
  name += kTemporarySuffix;
  name += "XXXXXX";
  std::string pattern = (path.parent_path() / name).string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw Error(path.string() + ": cannot create a temporary file beside it: " + std::strerror(errno));
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    ::unlink(pattern.c_str());
    throw Error(path.string() + ": " + what + ": " + reason);
  };
  std::size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    written += std::size_t(n);
  }
  if (::fchmod(fd, mode_t(mode)) != 0) fail("cannot set permissions");
  if (::fsync(fd) != 0) fail("cannot flush");
  if (::close(fd) != 0) {
    ::unlink(pattern.c_str());
    throw Error(path.string() + ": cannot close: " + std::strerror(errno));
  }
  return pattern;
}

void replace_with_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path) {
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw Error(path.string() + ": cannot replace: " + reason);
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  replace_with_temporary(write_temporary_beside(path, text, 0644), path);
}

void ensure_writable_folder(const std::string& option, const std::filesystem::path& folder) {
  const std::string name = option + " " + folder.string();
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw Error(name + ": cannot be created: " + ec.message());
  if (!std::filesystem::is_directory(folder, ec)) throw Error(name + ": is not a folder");
  // Write access asked of the file system itself (root ignores mode bits, a
  // read-only mount does not): create and remove a probe file.
  const auto probe = folder / (".kernelgate-probe-" + std::to_string(::getpid()));
  std::FILE* file = std::fopen(probe.c_str(), "w");
  if (!file) throw Error(name + ": cannot be written");
  std::fclose(file);
  std::filesystem::remove(probe, ec);
}

nlohmann::ordered_json load_report(const std::filesystem::path& file) {
  nlohmann::ordered_json report = read_json_file(file);
  read_file_kind(JsonReader(report, file.string()),
                 {.kind = kReportKind, .oldest_version = kOldestReportSchemaVersion, .version = kReportSchemaVersion});
  return report;
}

std::vector<std::filesystem::path> report_files(const std::filesystem::path& report_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(report_dir, ec)) throw Error(report_dir.string() + ": no such folder");
  std::filesystem::directory_iterator listing(report_dir, ec);
  if (ec) throw Error(report_dir.string() + ": cannot be read: " + ec.message());
  std::vector<std::filesystem::path> files;
  for (const auto& entry : listing) {
    const auto& path = entry.path();
    const std::string name = path.filename().string();
    // <workload>.<hardware>.json: two dots, not a temporary file.
    if (!entry.is_regular_file() || path.extension() != ".json" || name.front() == '.') continue;
    if (std::count(name.begin(), name.end(), '.') != 2) continue;
    files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kg
