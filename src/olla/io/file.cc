#include "olla/io/file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <zlib.h>

namespace olla {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return InvalidInput(path + ": is a directory, not a file");
  }
  // gzread passes plain files through unchanged, so one path reads both.
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    if (errno == ENOENT) return NotFound(path + ": no such file");
    return InvalidInput(path + ": cannot open: " + std::strerror(errno));
  }
  gzbuffer(file, 1 << 17);
  std::string contents;
  char chunk[1 << 16];
  while (true) {
    const int read = gzread(file, chunk, sizeof(chunk));
    if (read < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      return InvalidInput(path + ": cannot read: " + message);
    }
    if (read == 0) break;
    contents.append(chunk, static_cast<size_t>(read));
  }
  // A truncated gzip stream ends without error from gzread but is flagged here.
  int code = 0;
  const char* message = gzerror(file, &code);
  if (code != Z_OK && code != Z_BUF_ERROR) {
    std::string text = message;
    gzclose(file);
    return InvalidInput(path + ": cannot read: " + text);
  }
  if (gzclose(file) != Z_OK)
    return InvalidInput(path + ": corrupt or truncated gzip data");
  return contents;
}

Status WriteFile(const std::string& path, const std::string& contents) {
  const bool compress = EndsWith(path, ".gz");
  gzFile file = gzopen(path.c_str(), compress ? "wb6" : "wbT");
  if (file == nullptr)
    return InvalidInput(path + ": cannot open for writing: " + std::strerror(errno));
  size_t written = 0;
  while (written < contents.size()) {
    const auto chunk =
        static_cast<unsigned>(std::min<size_t>(contents.size() - written, 1 << 30));
    const int n = gzwrite(file, contents.data() + written, chunk);
    if (n <= 0) {
      gzclose(file);
      return InvalidInput(path + ": cannot write");
    }
    written += static_cast<size_t>(n);
  }
  if (gzclose(file) != Z_OK) return InvalidInput(path + ": cannot finish writing");
  return OkStatus();
}

}  // namespace olla
