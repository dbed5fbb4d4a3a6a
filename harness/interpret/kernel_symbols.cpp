// The mangled name of a kernel from its address, for the register table of a
// model run (counters.hpp, KernelResources). The gpu build's table names each
// kernel as nvcc mangles it; the C++ compile of the same kernel has the same
// name, except inside an anonymous namespace, where nvcc writes the source
// file into the namespace's name and g++ does not, and where the symbol is
// local, so the dynamic linker's dladdr cannot see it. So the name is looked
// up in the object file's full symbol table, and both spellings of an
// anonymous namespace are reduced to one.
#include "kernel_symbols.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

namespace kg::interp {

namespace {

// One object file's function symbols by address relative to its load base.
using SymbolsByAddress = std::map<std::uintptr_t, std::string>;

SymbolsByAddress read_function_symbols(const char* path) {
  SymbolsByAddress symbols;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return symbols;
  struct stat st {};
  void* map = fstat(fd, &st) == 0 ? mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return symbols;
  const auto* bytes = static_cast<const unsigned char*>(map);
  const auto size = static_cast<std::size_t>(st.st_size);
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(bytes);
  const bool elf64 = size >= sizeof(Elf64_Ehdr) && std::memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 &&
                     header->e_ident[EI_CLASS] == ELFCLASS64;
  if (elf64 && header->e_shoff + std::size_t{header->e_shnum} * sizeof(Elf64_Shdr) <= size) {
    const auto* sections = reinterpret_cast<const Elf64_Shdr*>(bytes + header->e_shoff);
    for (unsigned i = 0; i < header->e_shnum; ++i) {
      const Elf64_Shdr& table = sections[i];
      if ((table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM) || table.sh_link >= header->e_shnum) continue;
      const Elf64_Shdr& names = sections[table.sh_link];
      if (table.sh_offset + table.sh_size > size || names.sh_offset + names.sh_size > size) continue;
      const auto* entries = reinterpret_cast<const Elf64_Sym*>(bytes + table.sh_offset);
      const char* strings = reinterpret_cast<const char*>(bytes + names.sh_offset);
      for (std::size_t k = 0; k < table.sh_size / sizeof(Elf64_Sym); ++k) {
        const Elf64_Sym& symbol = entries[k];
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0 || symbol.st_name >= names.sh_size)
          continue;
        symbols.emplace(symbol.st_value, strings + symbol.st_name);
      }
    }
  }
  munmap(map, size);
  return symbols;
}

}  // namespace

std::string kernel_symbol(const void* kernel) {
  Dl_info info{};
  if (dladdr(kernel, &info) == 0) return {};
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<SymbolsByAddress>> by_file;
  std::lock_guard lock(mutex);
  const auto address = reinterpret_cast<std::uintptr_t>(kernel);
  const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  auto table = [&](const char* file) -> const SymbolsByAddress& {
    auto& symbols = by_file[file];
    if (!symbols) symbols = std::make_unique<SymbolsByAddress>(read_function_symbols(file));
    return *symbols;
  };
  // dladdr names the main program as it was started (argv[0]: empty, or a
  // bare name found on PATH, which may not open from here): then it is
  // /proc/self/exe. A shared library's name is its path.
  const SymbolsByAddress* symbols = &table(info.dli_fname ? info.dli_fname : "");
  if (symbols->empty()) symbols = &table("/proc/self/exe");
  // A position-independent file's symbols are relative to its base; an
  // executable linked at a fixed address has absolute ones.
  for (const std::uintptr_t relative : {address - base, address}) {
    const auto found = symbols->find(relative);
    if (found != symbols->end()) return found->second;
  }
  return {};
}

std::string canonical_kernel_symbol(const std::string& symbol) {
  // A kernel's name is _ZN <length><name>... E <parameters>: an anonymous
  // namespace among those names is "12_GLOBAL__N_1" from g++ and
  // "53_GLOBAL__N__<hash>_<file>_..." from nvcc. The lengths must be read
  // from the start: a name may itself end in digits, as some workload ids do.
  static const std::string marker = "_GLOBAL__N_", canonical = "12_GLOBAL__N_1";
  if (symbol.rfind("_ZN", 0) != 0) return symbol;
  std::string out = "_ZN";
  std::size_t at = 3;
  while (at < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at]))) {
    std::size_t digits = at;
    while (digits < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[digits]))) ++digits;
    const std::size_t length = std::stoul(symbol.substr(at, digits - at));
    if (digits + length > symbol.size()) return symbol;
    const std::string name = symbol.substr(digits, length);
    out += name.rfind(marker, 0) == 0 ? canonical : symbol.substr(at, digits - at) + name;
    at = digits + length;
  }
  return out + symbol.substr(at);
}

}  // namespace kg::interp
