// Files of the report concern: atomic writes, listing and reading reports,
// timestamps.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "kernelgate/error.hpp"
#include "kernelgate/report.hpp"

namespace kg {

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  // The temporary file sits beside the target so the rename stays on one
  // file system, which is what makes it atomic.
  std::string name = ".";  // built piecewise: GCC 12 warns falsely on "." + std::string
  name += path.filename().string();
  name += ".tmp.XXXXXX";
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
  if (::fchmod(fd, 0644) != 0) fail("cannot set permissions");
  if (::fsync(fd) != 0) fail("cannot flush");
  if (::close(fd) != 0) {
    ::unlink(pattern.c_str());
    throw Error(path.string() + ": cannot close: " + std::strerror(errno));
  }
  if (::rename(pattern.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(pattern.c_str());
    throw Error(path.string() + ": cannot replace: " + reason);
  }
}

nlohmann::ordered_json load_report(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json report;
  try {
    report = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(file.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!report.is_object() || report.value("kind", "") != kReportKind)
    throw Error(file.string() + ": not a kernelgate report (no \"kind\": \"" + kReportKind + "\")");
  if (report.value("schema_version", 0) != kReportSchemaVersion)
    throw Error(file.string() + ": report schema version " + report.value("schema_version", nlohmann::ordered_json(0)).dump() +
                ", this kernelgate reads " + std::to_string(kReportSchemaVersion));
  return report;
}

std::vector<std::filesystem::path> report_files(const std::filesystem::path& report_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(report_dir, ec)) throw Error(report_dir.string() + ": no such folder");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(report_dir)) {
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

std::string utc_timestamp_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace kg
