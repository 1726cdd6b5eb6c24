#include "olla/io/file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <zlib.h>

namespace olla {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// How many bytes reading the file will probably give: its size, or for gzip data the
// size its trailer records (the last member's, modulo 2^32), at most what deflate can
// expand the file to. A hint for the first reservation, never trusted.
size_t ExpectedSize(const std::string& path) {
  constexpr size_t kMostDeflateExpands = 1032;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return 0;  // A pipe: no hint.
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size > SIZE_MAX / kMostDeflateExpands) return 0;
  size_t expected = static_cast<size_t>(size);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return expected;
  std::array<unsigned char, 4> bytes{};
  if (size >= 18 && std::fread(bytes.data(), 1, 2, file) == 2 && bytes[0] == 0x1f &&
      bytes[1] == 0x8b && std::fseek(file, -4, SEEK_END) == 0 &&
      std::fread(bytes.data(), 1, 4, file) == 4) {
    const size_t recorded =
        static_cast<size_t>(bytes[0]) | static_cast<size_t>(bytes[1]) << 8 |
        static_cast<size_t>(bytes[2]) << 16 | static_cast<size_t>(bytes[3]) << 24;
    expected = std::min(recorded, expected * kMostDeflateExpands);
  }
  std::fclose(file);
  return expected;
}

// Reserves room for `bytes` more: a hint, so a refused reservation is not an error
// (reading then grows the text as it goes).
void ReserveMore(std::string& text, size_t bytes) {
  try {
    text.reserve(text.size() + bytes);
  } catch (const std::exception&) {
  }
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
  // Decompressed straight into the result in chunks, reserved once when the expected
  // size is right; each read leaves kReadPadding spare bytes of capacity past the end.
  constexpr size_t kChunk = size_t{1} << 22;
  std::string contents;
  ReserveMore(contents, ExpectedSize(path) + kChunk + kReadPadding);
  while (true) {
    const size_t size = contents.size();
    if (contents.capacity() < size + kChunk + kReadPadding)
      contents.reserve(
          std::max(contents.capacity() / 2 * 3, size + kChunk + kReadPadding));
    contents.resize(size + kChunk);
    const int read = gzread(file, contents.data() + size, kChunk);
    if (read < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      return InvalidInput(path + ": cannot read: " + message);
    }
    contents.resize(size + static_cast<size_t>(read));
    if (read == 0) break;
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
