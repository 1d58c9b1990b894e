// file_io.h: whole files read and replaced atomically, the one place the
// daemons write a file others read (SMDB dumps, metrics for node_exporter,
// the path tables in /dev/shm, the TCP port file).
//
// A reader must never see half a file, so a file is written under a
// temporary name in the same directory and renamed over the old one
// (atomic on one file system). The temporary name is unique per thread
// (<path>.tmp.<tid>) and is created exclusively and never through a link,
// so that in a world-writable directory (/dev/shm) nothing someone else put
// there is written through; a stale one of ours (a crash) is removed and the
// creation tried once more (the sticky bit lets us remove only our own).
// Its name does not end like the file's (node_exporter reads only *.prom).
//
// Reads, writes and closes go through raw_fd.h: these files are opened
// while thousands of client sockets hold the low fds.
#ifndef IBACM_SSA_COMMON_BASE_FILE_IO_H
#define IBACM_SSA_COMMON_BASE_FILE_IO_H

#include <sys/types.h>

#include <string>

#include "common/base/status.h"

namespace ssa {

struct FileWriteOptions {
  // The file's mode whatever the umask (readers of other users, e.g.
  // node_exporter or a job's ranks, must be able to read it).
  mode_t mode = 0644;
  // fsync before the rename, so that after a crash the name holds the old
  // file or the whole new one (databases; not needed on tmpfs).
  bool sync = false;
};

Status WriteFileAtomically(const std::string& path, const std::string& bytes,
                           const FileWriteOptions& options = FileWriteOptions());
// The same for `path` relative to the directory open on `dirfd`
// (AT_FDCWD: as open(2)). With `keep`, the new file's descriptor (open
// read-write) is left to the caller there on success.
Status WriteFileAtomicallyAt(int dirfd, const std::string& path, const std::string& bytes,
                             const FileWriteOptions& options, int* keep);
Status ReadWholeFile(const std::string& path, std::string* bytes);
// `dir` and every missing parent (mode 0755), as mkdir -p; an error names
// the part that could not be made, or says that `dir` is not a directory
// this process may write in.
Status MakeDirs(const std::string& dir);

}  // namespace ssa

#endif
