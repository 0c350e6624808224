/*
 * safefs.h - file operations near what the benchmark user controls.
 *
 * kiln runs as root and the benchmark as another user (platform.user), who
 * owns its home and its instrumentation folder and may leave anything there:
 * symbolic links to the results or to /etc/shadow, FIFOs, device links, deep
 * trees, a process swapping folders while kiln walks them.  The rules, kept
 * here so that no other file needs to know them:
 *   - kiln opens nothing inside such a folder by path: only relative to a
 *     descriptor it opened itself, with O_NOFOLLOW, and a file is read only
 *     when fstat says it is a regular file owned by the expected user;
 *   - kiln's own folders (the state folder with the homes, the
 *     instrumentation folders, the session records and the user locks) are
 *     created by kiln, checked to be kiln's (owner, mode, not a link) before
 *     use, and writable by nobody else;
 *   - removal is rm_rf() (util.c): fd-relative, never following a link.
 */
#ifndef KILN_SAFEFS_H
#define KILN_SAFEFS_H

#include <sys/types.h>
#include "util.h"

/*
 * Open NAME inside the folder dirfd for reading: never through a symbolic
 * link, never blocking (a FIFO is refused, not waited on), only a regular
 * file, and, when `owner` is not (uid_t)-1, only one owned by that user.
 * *size gets its size.  Errors name the file and say what it is.
 */
int sfs_open_file_at(int dirfd, const char *dirname, const char *name, uid_t owner, off_t *size, struct kerr *e);

/*
 * Open PATH to write into (kiln bench --output FILE): created with mode
 * 0600 when missing, never through a symbolic link at its last component,
 * never blocking (a FIFO is refused), and only a regular file of one link
 * that `owner` owns.  Not truncated: the caller does that once it is
 * checked.  Errors (KEXIT_CONFIG) name the file and say what it is.
 */
int sfs_open_output(const char *path, uid_t owner, struct kerr *e);

/*
 * Copy NAME inside the folder DIR (opened without following a link at its
 * end; its other components must be kiln's) to TO, a path of kiln's
 * (created or truncated, never through a link, `mode`): NAME opened as
 * sfs_open_file_at does, at most max bytes (a larger file is refused).
 * Returns 0, 1 when NAME does not exist (e untouched), -1 with e set.
 */
int sfs_copy_file(const char *dir, const char *name, uid_t owner, off_t max, const char *to, mode_t mode,
		  struct kerr *e);

/*
 * Make (or check) the folder NAME inside dirfd as kiln's own: created with
 * `mode` when missing, then opened with O_NOFOLLOW|O_DIRECTORY and checked
 * to belong to kiln's user and to be writable by nobody else.  Returns its
 * descriptor.
 */
int sfs_own_dir_at(int dirfd, const char *dirname, const char *name, mode_t mode, struct kerr *e);

/* the same for each component of a relative path "a/b/c" below dirfd */
int sfs_own_dirs_at(int dirfd, const char *dirname, const char *rel, mode_t mode, struct kerr *e);

/*
 * kiln's state folder: $KILN_STATE_DIR, else /var/lib/kiln as root and
 * /tmp/kiln-UID otherwise; created and checked (sfs_own_dir_at) on first
 * use.  Below it: home/ (the benchmark users' homes), instr/ (the
 * instrumentation folders), sessions/ (what a running kiln must be able to
 * clean up after a crash), locks/ (one per benchmark user).  sub may be
 * NULL for the folder itself.  Returns a malloc'd path, NULL with e set.
 */
char *sfs_state_path(const char *sub, mode_t mode, struct kerr *e);

/* a file name kiln may create from outside text: [A-Za-z0-9._+-], not . or .., no leading dot */
int sfs_name_ok(const char *name, size_t max);

#endif
