/*
 * verify_int.h - what the parts of ledger verification share (verify.c
 * reads the ledger and hands out items, verify_settle.c decides each
 * range's state): the run's compact picture of the ledger. Not installed.
 */
#ifndef ROZ_VERIFY_INT_H
#define ROZ_VERIFY_INT_H

#include "roz/verify.h"

/* Bytes of a range's SHA-256 kept and compared: 128 bits. */
#define VHASH 16

/* Strings kept once each (paths, intents, reasons), by index. */
typedef struct vstr {
	char *arena;
	size_t len, cap;
	size_t *off;          /* where string i starts in the arena */
	size_t n, capoff;
	uint32_t *slots;      /* open addressing: index + 1, 0 empty */
	size_t nslots;
} vstr;

int vstr_intern(vstr *t, const char *s, uint32_t *out) ROZ_WARN_UNUSED;
bool vstr_find(const vstr *t, const char *s, uint32_t *out);
const char *vstr_get(const vstr *t, uint32_t i);
void vstr_dispose(vstr *t);

/* A record: where its line is, so what an item shows can be read again. */
typedef struct vrec {
	uint64_t offset;
	size_t line;          /* 1-based line in the ledger */
	uint32_t len;
	uint32_t rank;        /* its place in time order */
	uint32_t intent;      /* interned intent + 1; 0: none */
	bool checked;         /* its ranges are items (the since filter) */
	bool rev_match;       /* its vcs.revision is since_revision */
} vrec;

/* What an entry is: a range, or what its record did to a whole file. */
enum { VK_RANGE, VK_REMOVED, VK_ACCEPT, VK_AWAY };
enum {
	VF_HUMAN = 1,         /* a person's range: retires, never checked */
	VF_SHA = 2,           /* has a SHA-256 to check */
	VF_BIG = 4            /* line numbers past 32 bits: in the big table */
};
/* Not decided yet (a state is set by settle for every item). */
#define VSTATE_OPEN 0xff

typedef struct vent {
	uint32_t rec, file;
	uint32_t start, end;
	unsigned char hash[VHASH];
	uint8_t kind, flags, state;
} vent;

typedef struct vbig {
	size_t ent;
	unsigned long start, end;
} vbig;

/* Where a moved range is now (sorted by ent after settle). */
typedef struct vmoved {
	size_t ent;
	uint32_t file;
	unsigned long start;
} vmoved;

typedef struct vbad {
	size_t line;
	uint32_t why;         /* interned */
} vbad;

struct roz_verify {
	roz_verify_opts o;
	size_t line;          /* lines fed */
	vrec *recs;
	size_t nrecs, caprecs;
	roz_time *times;      /* per record while reading; dropped once ranked */
	size_t captimes;
	roz_time last_time;
	bool timed, ordered;  /* every record has a time; they come in time order */
	vent *ents;
	size_t nents, capents;
	vbig *big;
	size_t nbig, capbig;
	vmoved *moved;
	size_t nmoved, capmoved;
	vbad *bad;
	size_t nbad, capbad;
	vstr paths, intents, whys;
	uint32_t last_path;   /* the path interned last */
	uint32_t last_intent; /* the intent interned last + 1; 0: none yet */
	uint32_t *file_why;   /* per file: interned reason + 1 it could not be read; 0: none */
	/* where renames are looked for from */
	char *hint_rev, *first_rev;
	roz_time hint_time, min_time;
	bool has_min_time;
	bool settled;
	/* the ids of the record whose items are being handed out */
	uint32_t id_rec;      /* record + 1 */
	char *id, *session;
};

/* The first VHASH bytes of 64 lowercase hex digits; false when it is not that. */
bool vhex_bytes(const char *hex, unsigned char out[VHASH]);
void vent_bounds(const roz_verify *v, size_t i, unsigned long *start, unsigned long *end);
int vreport_bad(const roz_verify *v, roz_verify_report *out) ROZ_WARN_UNUSED;

/* Whether entry e is an item: a range not a person's, of a record that is checked. */
static inline bool vent_is_item(const roz_verify *v, const vent *e)
{
	return e->kind == VK_RANGE && !(e->flags & VF_HUMAN) && v->recs[e->rec].checked;
}

#endif
