/*
 * wb_recover.c - the recovery file.
 *
 * While the partition has unsaved edits it is written (at most every two
 * seconds, atomically) to $XDG_STATE_HOME/stagecut/ (default
 * ~/.local/state/stagecut/), under a name made from the graph's full path
 * and k (wb_recover_name: the path itself, '/', '%' and '~' escaped as
 * %2F, %25 and %7E so that no two paths share a name, while the name fits
 * in NAME_MAX, else its end and a hash of all of it); a save, a deliberate
 * quit, or coming back to the baseline (an undo, a settings change that
 * replaced the edits: w->edited false) removes it.  A killed terminal or
 * a crash leaves it, and the next start on the same graph and k offers
 * it, unless it holds the partition that start shows anyway.
 *
 * Several workbenches may run on the same graph and k, so each takes a
 * slot of its own: slot 1 is the plain name, slot n the name with ".n"
 * before ".json".  A slot is taken by locking its lock file (a hidden
 * ".<name>.lock" beside it, fcntl F_SETLK) for as long as the session
 * runs; the recovery file itself cannot carry the lock, as every write
 * renames a new file over it.  A slot whose lock nobody holds belongs to
 * nobody: its recovery file, if any, is a dead session's and may be
 * offered; a held slot is a live session's and is never read, offered or
 * removed by another.  The lock file is removed (while held) when the
 * session ends; whoever locks a lock file checks afterwards that it is
 * still the file at that name, so one removed between its open and its
 * lock is not mistaken for the slot.
 *
 * Anything at a slot's names other than a regular file (a FIFO, a device,
 * a directory, a symbolic link) is left alone and the slot skipped, with
 * a note on the status line; nothing here opens a file in a way that can
 * block (O_NONBLOCK, O_NOFOLLOW, then fstat), and the writer renames a
 * file written beside into place rather than writing through the name.
 *
 * Files are written on a thread of their own from a snapshot of the stages,
 * so a big graph's JSON never delays a key press.  The loop (workbench.c)
 * decides when to write, waking for it when wb_recover_next says; saving
 * is in wb_files.c.
 *
 * Longer than 600 lines: the slots and their locks, the writer thread and
 * the start's two questions (restore a dead session's edits; keep or
 * delete a file that no longer fits the graph) share one slot's state;
 * apart, each would need the others' internals.
 *
 * Layer: a service of layer 4 (wb.h), below the views and modals: it calls
 * the state and the prompt; wb_files.c, wb_settings.c and the loop call it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_recover.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_lineedit.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* How many workbenches may keep recovery files on one graph and k. */
enum { SLOTS = 32 };
/* A hashed name keeps at most this much of the end of the path. */
enum { KEPT = 96 };

/* FNV-1a, 64 bits: names, not security. */
static uint64_t hash_of(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* Whether c is written as %XX in a recovery file's name: the directory
 * separator, the escape itself, and '~', which only a hashed name holds
 * (so that no plain name can be a hashed one). */
static bool escaped(char c)
{
	return c == '/' || c == '%' || c == '~';
}

/* s[0..n) escaped into buf at *at (room permitting, which the caller has
 * counted); returns the escaped length. */
static size_t escape(const char *s, size_t n, char *buf, size_t *at)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (escaped((char)c)) {
			if (buf) {
				buf[(*at)++] = '%';
				buf[(*at)++] = hex[c >> 4];
				buf[(*at)++] = hex[c & 15];
			}
			len += 3;
		} else {
			if (buf)
				buf[(*at)++] = (char)c;
			len++;
		}
	}
	return len;
}

bool wb_recover_name(char *buf, size_t size, const char *full, int k, int slot)
{
	char tail[48];
	if (slot > 1)
		snprintf(tail, sizeof tail, "-k%d.%d.json", k, slot);
	else
		snprintf(tail, sizeof tail, "-k%d.json", k);
	size_t n = strlen(full), t = strlen(tail), at = 0;
	size_t e = escape(full, n, NULL, NULL);
	/* the lock file's name is the longer by its leading '.' */
	if (e + t + 1 <= NAME_MAX) {
		if (e + t + 1 > size)
			return false;
		escape(full, n, buf, &at);
		memcpy(buf + at, tail, t + 1);
		return true;
	}
	/* the end of the path, from a '/' when one is near the cut, so that it
	 * starts with a whole directory's name */
	const char *end = full + n - KEPT;
	const char *slash = strchr(end, '/');
	if (slash && slash - end < KEPT / 2)
		end = slash;
	char kept[3 * KEPT + 1];
	escape(end, strlen(end), kept, &at);
	kept[at] = '\0';
	int len =
	        snprintf(buf, size, "%s~%016llx%s", kept, (unsigned long long)hash_of(full), tail);
	return len >= 0 && (size_t)len < size;
}

/* The lock file of the recovery file at path: ".<name>.lock" beside it
 * (name without ".json"). */
static bool lock_path(char *buf, size_t size, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t name = strlen(path + dir);
	if (name > 5 && strcmp(path + dir + name - 5, ".json") == 0)
		name -= 5;
	int len = snprintf(buf, size, "%.*s.%.*s.lock", (int)dir, path, (int)name, path + dir);
	return len >= 0 && (size_t)len < size;
}

/* What a file of mode m is, for a note ("a FIFO"). */
static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "a special file";
}

/* Removes path when it is a regular file (a recovery file; anything else
 * put there is not ours). */
static void remove_file(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

/* Locks the lock file at lock, creating it; returns its descriptor, or -1
 * when a live workbench holds it, it cannot be made, or something other
 * than a regular file is there (*odd then says what). */
static int lock_slot(const char *lock, const char **odd)
{
	for (int tries = 0; tries < 3; tries++) {
		struct stat ls, fs, ps;
		if (lstat(lock, &ls) == 0 && !S_ISREG(ls.st_mode)) {
			*odd = kind_of(ls.st_mode);
			return -1;
		}
		int fd = open(lock,
		              O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		              0600);
		if (fd < 0)
			return -1;
		struct flock fl = {
		        .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
		if (fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode) || fcntl(fd, F_SETLK, &fl) != 0) {
			close(fd);
			return -1;
		}
		/* its owner may have removed it between the open and the lock:
		 * then this lock is on a file nobody else will see; again */
		if (stat(lock, &ps) == 0 && ps.st_dev == fs.st_dev && ps.st_ino == fs.st_ino)
			return fd;
		close(fd);
	}
	return -1;
}

/* Gives up a slot taken by lock_slot: removes its lock file while still
 * holding it, then unlocks it by closing. */
static void unlock_slot(const char *path, int fd)
{
	char lock[PATH_MAX + 16];
	if (lock_path(lock, sizeof lock, path))
		unlink(lock);
	close(fd);
}

wb_recover *wb_recover_new(void)
{
	return calloc(1, sizeof(wb_recover));
}

void wb_recover_free(wb_recover *rec)
{
	if (!rec)
		return;
	free(rec->stage);
	free(rec->kind);
	free(rec);
}

bool wb_recover_asking(const wb *w)
{
	return w->rec->stage || w->rec->misfit;
}

void wb_recover_close(wb *w)
{
	wb_recover *rc = w->rec;
	wb_recover_wait();
	if (rc->path[0])
		unlock_slot(rc->path, rc->lock);
	rc->path[0] = '\0';
	rc->left = false;
}

/* The state directory ($XDG_STATE_HOME/stagecut), made if missing, into
 * dir; false with a note in w when there is none. */
static bool state_dir(wb *w, char *dir, size_t size)
{
	wb_recover *rc = w->rec;
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int len;
	if (state && *state)
		len = snprintf(dir, size, "%s/stagecut", state);
	else if (home && *home)
		len = snprintf(dir, size, "%s/.local/state/stagecut", home);
	else {
		snprintf(rc->note, sizeof rc->note,
		         "no recovery file for unsaved edits: neither XDG_STATE_HOME nor HOME is "
		         "set");
		return false;
	}
	if (len < 0 || (size_t)len >= size) {
		snprintf(rc->note, sizeof rc->note,
		         "no recovery file for unsaved edits: the state directory's path is too "
		         "long");
		return false;
	}
	/* mkdir -p */
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	struct stat st;
	const char *why = stat(dir, &st) != 0    ? strerror(errno)
	                  : !S_ISDIR(st.st_mode) ? "not a directory"
	                                         : NULL;
	if (why)
		snprintf(rc->note, sizeof rc->note,
		         "no recovery file for unsaved edits: %s: %.200s", why, dir);
	return !why;
}

/* Slot n's recovery file for full and k, in dir, into path. */
static bool slot_path(char *path, size_t size, const char *dir, const char *full, int k, int n)
{
	char name[NAME_MAX + 1];
	if (!wb_recover_name(name, sizeof name, full, k, n))
		return false;
	size_t d = strlen(dir), m = strlen(name);
	if (d + 1 + m >= size)
		return false;
	memcpy(path, dir, d);
	path[d] = '/';
	memcpy(path + d + 1, name, m + 1);
	return true;
}

void wb_recover_open(wb *w, bool leftover)
{
	wb_recover *rc = w->rec;
	wb_recover_close(w);
	char dir[PATH_MAX], full[PATH_MAX];
	if (!state_dir(w, dir, sizeof dir))
		return;
	if (!realpath(w->path, full)) {
		snprintf(rc->note, sizeof rc->note,
		         "no recovery file for unsaved edits: %s: %.200s", strerror(errno),
		         w->path);
		return;
	}
	int own = -1, own_slot = 0, busy = 0;
	bool own_left = false;
	const char *odd = NULL;
	char path[sizeof rc->path], lock[sizeof rc->path + 16], odd_at[sizeof lock];
	/* with leftover, every slot is looked at for a dead session's file;
	 * else the first free slot with none will do */
	for (int n = 1; n <= SLOTS && !(own >= 0 && (own_left || !leftover)); n++) {
		if (!slot_path(path, sizeof path, dir, full, sc_settings_stages(&w->set), n) ||
		    !lock_path(lock, sizeof lock, path))
			break;
		struct stat st;
		bool file = false;
		if (lstat(path, &st) == 0) {
			if (!S_ISREG(st.st_mode)) {
				if (!odd) {
					odd = kind_of(st.st_mode);
					snprintf(odd_at, sizeof odd_at, "%s", path);
				}
				continue;
			}
			file = true;
		}
		if (file && !leftover)
			continue; /* another session's file, alive or not: not ours */
		if (!file && own >= 0)
			continue; /* a free slot is held already */
		const char *odd_lock = NULL;
		int fd = lock_slot(lock, &odd_lock);
		if (fd < 0) {
			if (odd_lock && !odd) {
				odd = odd_lock;
				snprintf(odd_at, sizeof odd_at, "%s", lock);
			}
			busy += !odd_lock;
			continue;
		}
		/* held now; its file may have gone since (its owner quit) */
		bool now = lstat(path, &st) == 0;
		if ((now && !S_ISREG(st.st_mode)) || (!now && own >= 0)) {
			unlock_slot(path, fd);
			continue;
		}
		if (own >= 0) {
			slot_path(path, sizeof path, dir, full, sc_settings_stages(&w->set),
			          own_slot);
			unlock_slot(path, own);
			slot_path(path, sizeof path, dir, full, sc_settings_stages(&w->set), n);
		}
		own = fd;
		own_slot = n;
		own_left = now;
	}
	if (own < 0) {
		if (odd)
			snprintf(rc->note, sizeof rc->note,
			         "no recovery file for unsaved edits: left alone %s at %.200s", odd,
			         odd_at);
		else
			snprintf(rc->note, sizeof rc->note,
			         "no recovery file for unsaved edits: all %d names for this graph "
			         "and "
			         "k are taken (%d by running workbenches)",
			         SLOTS, busy);
		return;
	}
	slot_path(rc->path, sizeof rc->path, dir, full, sc_settings_stages(&w->set), own_slot);
	rc->lock = own;
	rc->left = own_left;
	if (odd)
		snprintf(rc->note, sizeof rc->note,
		         "recovery: left alone %s where a recovery file goes: %.200s", odd, odd_at);
}

/* What the writer thread owns: a snapshot of the stages (freed by it). */
typedef struct recover_job {
	char path[4096];
	const sc_graph *g;
	sc_settings set; /* as core counts the stages (wb_part_settings) */
	int *stage;
	int *kind; /* with devices: set.k kinds, written as the devices */
} recover_job;

static atomic_bool recover_busy;
/* why the last write failed, or "": the writer's while recover_busy, the
 * loop's after */
static char recover_failed[280];

/* Writes the snapshot into a new hidden file beside the recovery file and
 * renames it into place, unless something other than a regular file took
 * the name meanwhile (never written through: a FIFO would block). */
static bool write_snapshot(recover_job *r)
{
	char tmp[sizeof r->path + 16];
	const char *slash = strrchr(r->path, '/');
	int dir = slash ? (int)(slash - r->path) : 0;
	snprintf(tmp, sizeof tmp, "%.*s/.tmp-XXXXXX", dir, r->path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(recover_failed, sizeof recover_failed, "%s", strerror(errno));
		return false;
	}
	close(fd);
	sc_error err;
	sc_costs *c = sc_costs_new(r->g, &r->set, &err);
	bool ok = c;
	if (c) {
		sc_costs_set_kinds(c, r->kind);
		sc_costs_eval(c, r->stage);
		ok = sc_part_write(tmp, r->g, r->stage, r->set.k, c, &err) == SC_OK;
		sc_costs_free(c);
	}
	struct stat st;
	if (!ok) {
		snprintf(recover_failed, sizeof recover_failed, "%.200s", err.msg);
	} else if (lstat(r->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(recover_failed, sizeof recover_failed, "%s is in its place: %.200s",
		         kind_of(st.st_mode), r->path);
		ok = false;
	} else if (rename(tmp, r->path) != 0) {
		snprintf(recover_failed, sizeof recover_failed, "%s: %.200s", strerror(errno),
		         r->path);
		ok = false;
	}
	if (!ok)
		unlink(tmp);
	return ok;
}

static void *recover_main(void *arg)
{
	recover_job *r = arg;
	write_snapshot(r);
	free(r->stage);
	free(r->kind);
	free(r);
	atomic_store(&recover_busy, false);
	return NULL;
}

void wb_recover_wait(void)
{
	while (atomic_load(&recover_busy)) {
		struct timespec t = {0, 5000000};
		nanosleep(&t, NULL);
	}
}

void wb_recover_write(wb *w, bool wait)
{
	wb_recover *rc = w->rec;
	/* while the offer waits for its answer the file is the earlier
	 * session's, not ours to touch */
	if (!rc->path[0] || !w->recover_due || wb_recover_asking(w))
		return;
	if (wait)
		wb_recover_wait();
	else if (atomic_load(&recover_busy))
		return;
	if (!w->edited) {
		/* back at the baseline (an undo, a save, a settings change that
		 * replaced the edits): nothing is left to recover */
		remove_file(rc->path);
		w->recover_due = false;
		return;
	}
	recover_job *r = malloc(sizeof *r);
	int *st = sc_part_new(w->g);
	if (!r || !st) {
		free(r);
		free(st);
		return;
	}
	memcpy(st, w->stage, (size_t)w->g->n * sizeof *st);
	r->kind = w->kind ? malloc((size_t)sc_settings_stages(&w->set) * sizeof *r->kind) : NULL;
	if (w->kind && !r->kind) {
		free(r);
		free(st);
		return;
	}
	if (r->kind)
		memcpy(r->kind, w->kind, (size_t)sc_settings_stages(&w->set) * sizeof *r->kind);
	snprintf(r->path, sizeof r->path, "%s", rc->path);
	r->g = w->g;
	wb_part_settings(w, &r->set); /* (its costs: core's count) */
	r->stage = st;
	w->recover_due = false;
	rc->t = sc_clock_now();
	atomic_store(&recover_busy, true);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (wait || pthread_create(&th, &attr, recover_main, r) != 0)
		recover_main(r);
	pthread_attr_destroy(&attr);
}

void wb_recover_tick(wb *w, double now)
{
	wb_recover *rc = w->rec;
	if (w->recover_due && now - rc->t > 2)
		wb_recover_write(w, false);
	if (!atomic_load(&recover_busy) && recover_failed[0]) {
		snprintf(rc->note, sizeof rc->note, "recovery file not written: %s",
		         recover_failed);
		recover_failed[0] = '\0';
	}
	/* after the start-up's messages, not in place of them */
	if (rc->note[0] && !wb_msg_fresh(w, now)) {
		wb_say(w, "%s", rc->note);
		rc->note[0] = '\0';
	}
}

double wb_recover_next(const wb *w, double now)
{
	wb_recover *rc = w->rec;
	/* the writer thread does not wake the loop (it could outlive the
	 * engine's pipe), so the loop looks while it runs: a write takes
	 * milliseconds and comes at most every two seconds */
	if (atomic_load(&recover_busy))
		return now + 0.05;
	double next = INFINITY;
	if (recover_failed[0] || rc->note[0])
		next = wb_msg_fresh(w, now) ? wb_msg_expiry(w) : now;
	/* as wb_recover_write: nothing while the offer waits for its answer */
	if (w->recover_due && rc->path[0] && !wb_recover_asking(w))
		next = fmin(next, rc->t + 2);
	return next;
}

void wb_recover_clear(wb *w)
{
	wb_recover *rc = w->rec;
	wb_recover_wait();
	if (rc->path[0])
		remove_file(rc->path);
	w->recover_due = false;
}

/* The offer's answer: r restores, d (or Esc) discards; then the start-up
 * goes on.  The recovered stages wait in rc->stage until
 * the answer. */
static unsigned offer_answer(wb *w, const char *answer, bool ok, int arg)
{
	wb_recover *rc = w->rec;
	(void)arg;
	(void)ok;
	if (answer[0] == 'r') {
		wb_set_current_kinds(w, rc->stage, rc->kind,
		                     "recovered from an earlier session (unsaved)", true);
		wb_say(w, "restored the recovered partition; w saves it");
	} else {
		wb_recover_clear(w);
	}
	free(rc->stage);
	free(rc->kind);
	rc->stage = NULL;
	rc->kind = NULL;
	if (rc->after_offer)
		rc->after_offer(w);
	return WB_HANDLED | WB_REDRAW;
}

/* Reads the slot's file into rs: opened without blocking and checked to be
 * a regular file first, then read through that descriptor (/dev/fd/N opens
 * the file it names), so that a FIFO put there meanwhile cannot block.
 * False when it cannot be read; why (size bytes) then says why when it is
 * a regular file that does not fit this graph ("" otherwise). */
static bool read_left(wb *w, int *rs, int *rkind, char *why, size_t size)
{
	wb_recover *rc = w->rec;
	why[0] = '\0';
	int fd = open(rc->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (ok) {
		char via[32];
		snprintf(via, sizeof via, "/dev/fd/%d", fd);
		const char *from = access(via, R_OK) == 0 ? via : rc->path;
		int k2;
		sc_error err;
		/* with CPU stages the file names the devices; a file with CPU
		 * stages is not this session's without them */
		int *kind = NULL;
		ok = wb_part_load(w, from, sc_settings_stages(&w->set), &k2, rs, &kind, &err) ==
		     SC_OK;
		if (!ok) {
			/* the message names the file read: it is said beside */
			size_t n = strlen(from);
			const char *msg = strncmp(err.msg, from, n) == 0 && err.msg[n] == ':'
			                          ? err.msg + n + 1 + (err.msg[n + 1] == ' ')
			                          : err.msg;
			snprintf(why, size, "%.300s", msg);
		} else if (kind && !rkind) {
			snprintf(why, size, "it has CPU stages and this session has none");
			ok = false;
		}
		for (int s = 0; ok && rkind && s < k2; s++)
			rkind[s] = kind ? kind[s] : 0;
		free(kind);
	}
	close(fd);
	return ok;
}

/* The answer about a recovery file that does not fit the graph: d deletes
 * it; k or Esc keeps it where it is (offered again at the next start) and
 * takes another name for this session's edits.  Then the start-up goes
 * on. */
static unsigned misfit_answer(wb *w, const char *answer, bool ok, int arg)
{
	wb_recover *rc = w->rec;
	(void)arg;
	(void)ok;
	char path[sizeof rc->path];
	snprintf(path, sizeof path, "%s", rc->path);
	rc->misfit = false;
	bool keep = answer[0] != 'd';
	if (keep)
		wb_recover_open(w, false);
	else
		remove_file(path);
	if (rc->after_offer)
		rc->after_offer(w);
	/* said when the start-up's messages are done, as the notes are (with
	 * one wb_recover_open left, if any) */
	char other[sizeof rc->note];
	snprintf(other, sizeof other, "%s", rc->note);
	snprintf(rc->note, sizeof rc->note, "%s the recovery file %.180s%s%s%.60s",
	         keep ? "kept" : "deleted", path, keep ? " (offered again at the next start)" : "",
	         other[0] ? "; " : "", other);
	return WB_HANDLED | WB_REDRAW;
}

bool wb_recover_offer(wb *w, void (*then)(wb *w))
{
	wb_recover *rc = w->rec;
	if (!rc->path[0] || !rc->left)
		return false;
	rc->left = false;
	int *rs = sc_part_new(w->g);
	int *rkind = w->kind ? calloc((size_t)sc_settings_stages(&w->set), sizeof *rkind) : NULL;
	char why[400] = "";
	if (!rs || (w->kind && !rkind) || !read_left(w, rs, rkind, why, sizeof why)) {
		free(rs);
		free(rkind);
		if (!why[0])
			return false;
		/* edits of an earlier session on another version of the graph
		 * (an op added or removed since): never removed unasked */
		char q[WB_QUESTION_SIZE];
		snprintf(q, sizeof q,
		         "the recovery file %.600s does not fit this graph (%.300s): k keeps it, "
		         "d deletes it",
		         rc->path, why);
		rc->misfit = true;
		rc->after_offer = then;
		wb_choose(w, q, "kd", misfit_answer, 0);
		return true;
	}
	if (memcmp(rs, w->stage, (size_t)w->g->n * sizeof *rs) == 0 &&
	    (!rkind ||
	     memcmp(rkind, w->kind, (size_t)sc_settings_stages(&w->set) * sizeof *rkind) == 0)) {
		/* the partition this start shows anyway: nothing to offer */
		free(rs);
		free(rkind);
		remove_file(rc->path);
		return false;
	}
	free(rc->stage);
	free(rc->kind);
	rc->stage = rs;
	rc->kind = rkind;
	rc->after_offer = then;
	wb_choose(w,
	          "recovered an unsaved partition from an earlier session: r restores it, d "
	          "discards it",
	          "rd", offer_answer, 0);
	return true;
}
