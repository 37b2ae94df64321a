// SPDX-License-Identifier: MIT
/*
 * The x86-64 length decoder (src/arch/x86_64/insn.c): encodings with
 * known lengths, the sweep's verdicts on syscall sites, and every
 * instruction of the C library and busybox against objdump's decoding.
 * The search for PKRU and segment-base writes (priv_scan.c): known
 * encodings at every offset, and every one objdump shows in the C
 * library, the dynamic linker and busybox found.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "../../src/arch/x86_64/insn.h"
#include "../../src/arch/x86_64/priv_scan.h"

/* src/task/eh_frame.c, hidden in the library */
long ua__eh_frame_starts(const uint8_t *eh, size_t len, uint64_t vaddr,
			 uint64_t **out);

struct known {
	const char *what;
	uint8_t b[16];
	int n; /* bytes in b */
	int len;
	unsigned int f; /* RELOC, RIP, BR, SYSC */
};

enum { RELOC = 1, RIP = 2, BR = 4, SYSC = 8 };

static const struct known known[] = {
	{ "mov $39,%eax", { 0xb8, 0x27, 0, 0, 0 }, 5, 5, RELOC },
	{ "movabs $imm64,%rax",
	  { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 },
	  10,
	  10,
	  RELOC },
	{ "mov $imm16,%ax", { 0x66, 0xb8, 1, 2 }, 4, 4, RELOC },
	{ "66 REX.W: 64-bit wins",
	  { 0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 },
	  11,
	  11,
	  RELOC },
	{ "REX then 66: REX ignored", { 0x48, 0x66, 0xb8, 1, 2 }, 5, 5, RELOC },
	{ "mov 0x8(%rsp),%r9", { 0x4c, 0x8b, 0x4c, 0x24, 0x08 }, 5, 5, RELOC },
	{ "mov 0x10(%rbp),%rax", { 0x48, 0x8b, 0x45, 0x10 }, 4, 4, RELOC },
	{ "mov disp32(,%rax,8),%rax",
	  { 0x48, 0x8b, 0x04, 0xc5, 1, 2, 3, 4 },
	  8,
	  8,
	  RELOC },
	{ "mov %fs:0x28,%rax",
	  { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 },
	  9,
	  9,
	  RELOC },
	{ "mov x(%rip),%rax", { 0x48, 0x8b, 0x05, 1, 2, 3, 4 }, 7, 7, RIP },
	{ "movl $1,0x8(%rsp)",
	  { 0xc7, 0x44, 0x24, 0x08, 1, 0, 0, 0 },
	  8,
	  8,
	  RELOC },
	{ "movl $1,x(%rip)",
	  { 0xc7, 0x05, 1, 2, 3, 4, 1, 0, 0, 0 },
	  10,
	  10,
	  RIP },
	{ "movw $1,(%rax)", { 0x66, 0xc7, 0x00, 1, 0 }, 5, 5, RELOC },
	{ "test $1,%bl", { 0xf6, 0xc3, 0x01 }, 3, 3, RELOC },
	{ "testl $1,(%rdi)", { 0xf7, 0x07, 1, 0, 0, 0 }, 6, 6, RELOC },
	{ "negl (%rdi)", { 0xf7, 0x1f }, 2, 2, RELOC },
	{ "mov moffs64,%al", { 0xa0, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, 9, RELOC },
	{ "67 a0 moffs32", { 0x67, 0xa0, 1, 2, 3, 4 }, 6, 6, RELOC },
	{ "syscall", { 0x0f, 0x05 }, 2, 2, SYSC },
	{ "call rel32", { 0xe8, 1, 2, 3, 4 }, 5, 5, BR },
	{ "jne rel32", { 0x0f, 0x85, 1, 2, 3, 4 }, 6, 6, BR },
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, 2, BR },
	{ "call *0x8(%rax)", { 0xff, 0x50, 0x08 }, 3, 3, BR },
	{ "ret", { 0xc3 }, 1, 1, BR },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, 4, RELOC },
	{ "nopw %cs:0(%rax,%rax,1)",
	  { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
	  10,
	  10,
	  RELOC },
	{ "pshufd $0,%xmm0,%xmm1", { 0x66, 0x0f, 0x70, 0xc8, 0 }, 5, 5, RELOC },
	{ "pcmpistri $0x1a,(%rdi),%xmm1",
	  { 0x66, 0x0f, 0x3a, 0x63, 0x0f, 0x1a },
	  6,
	  6,
	  RELOC },
	{ "pshufb %xmm1,%xmm0", { 0x66, 0x0f, 0x38, 0x00, 0xc1 }, 5, 5, RELOC },
	{ "vpbroadcastb %xmm0,%ymm0",
	  { 0xc4, 0xe2, 0x7d, 0x78, 0xc0 },
	  5,
	  5,
	  RELOC },
	{ "vmovdqu (%rsi),%ymm1", { 0xc5, 0xfe, 0x6f, 0x0e }, 4, 4, RELOC },
	{ "vzeroupper", { 0xc5, 0xf8, 0x77 }, 3, 3, RELOC },
	{ "vpalignr $1,%ymm0,%ymm1,%ymm2",
	  { 0xc4, 0xe3, 0x75, 0x0f, 0xd0, 0x01 },
	  6,
	  6,
	  RELOC },
	{ "vmovdqu64 0x40(%rsi),%zmm16",
	  { 0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x46, 0x01 },
	  7,
	  7,
	  RELOC },
	{ "enter $8,$0", { 0xc8, 8, 0, 0 }, 4, 4, RELOC },
	{ "rdfsbase %rax", { 0xf3, 0x48, 0x0f, 0xae, 0xc0 }, 5, 5, RELOC },
	{ "pop 0x8(%rax)", { 0x8f, 0x40, 0x08 }, 3, 3, RELOC },
	{ "int $0x80", { 0xcd, 0x80 }, 2, 2, 0 },
	{ "xbegin rel32", { 0xc7, 0xf8, 1, 2, 3, 4 }, 6, 6, BR },
};

Test(insn, known_encodings)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];
		struct ua__insn in;

		cr_assert_eq(ua__insn_decode(k->b, (size_t)k->n, &in), k->len,
			     "%s: %d", k->what, in.len);
		cr_assert_eq(in.relocatable, !!(k->f & RELOC), "%s", k->what);
		cr_assert_eq(in.rip_rel, !!(k->f & RIP), "%s", k->what);
		cr_assert_eq(in.branch, !!(k->f & BR), "%s", k->what);
		cr_assert_eq(in.syscall, !!(k->f & SYSC), "%s", k->what);
		/* One byte short of the instruction is never a decoding. */
		cr_assert_eq(ua__insn_decode(k->b, (size_t)k->n - 1, &in), -1,
			     "%s truncated", k->what);
	}
}

Test(insn, invalid_in_64bit_mode)
{
	static const uint8_t bad[][3] = {
		{ 0x06 },	{ 0x27 },	{ 0x60 },	{ 0x9a },
		{ 0xce },	{ 0xd4 },	{ 0xea },	{ 0x0f, 0x04 },
		{ 0x0f, 0x0a }, { 0xff, 0xf8 }, { 0xfe, 0x10 }, { 0xc7, 0xc8 },
		{ 0x8f, 0xe8 },
	};
	uint8_t many[16];
	struct ua__insn in;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(ua__insn_decode(bad[i], 3, &in), -1, "%zu", i);
	/* 15 bytes at most: 14 prefixes and a nop fit, 15 do not. */
	memset(many, 0x66, sizeof(many));
	many[14] = 0x90;
	cr_assert_eq(ua__insn_decode(many, 15, &in), 15);
	many[14] = 0x66;
	many[15] = 0x90;
	cr_assert_eq(ua__insn_decode(many, 16, &in), -1);
}

static size_t sweep1(const uint8_t *code, size_t n, struct ua__insn_site *s,
		     struct ua__sweep_stats *st)
{
	return ua__insn_sweep(code, n, 0x1000, s, 8, st);
}

Test(insn, sweep_verdicts)
{
	static const uint8_t code[] = {
		0x0f, 0x05,				  /* 0x1000 first */
		0xb8, 0x27, 0,	  0,	0,    0x0f, 0x05, /* 0x1002: 0x1007 ok, 5 */
		0x89, 0xf8, 0x0f, 0x05, /* 0x1009: 0x100b short */
		0x48, 0x8b, 0x05, 1,	2,    3,    4,	  0x0f,
		0x05,					  /* 0x1014 rip */
		0xe8, 0,    0,	  0,	0,    0x0f, 0x05, /* 0x101b branch */
		0x0f, 0x05, 0x0f, 0x05, /* 0x101d, 0x101f after syscall */
		0x4c, 0x8b, 0x4c, 0x24, 0x08, 0x0f, 0x05, /* 0x1026 ok, 5 */
	};
	static const struct ua__insn_site want[] = {
		{ 0x1000, 0, UA_INSN_WHY_FIRST, 0 },
		{ 0x1007, 5, UA_INSN_OK, 0 },
		{ 0x100b, 0, UA_INSN_WHY_SHORT, 2 },
		{ 0x1014, 0, UA_INSN_WHY_RIP_REL, 0 },
		{ 0x101b, 0, UA_INSN_WHY_BRANCH, 0 },
		{ 0x101d, 0, UA_INSN_WHY_SYSCALL, 0 },
		{ 0x101f, 0, UA_INSN_WHY_SYSCALL, 0 },
		{ 0x1026, 5, UA_INSN_OK, 0 },
	};
	struct ua__insn_site s[8];
	struct ua__sweep_stats st;

	cr_assert_eq(sweep1(code, sizeof(code), s, &st), 8);
	cr_assert_eq(st.failures, 0);
	for (size_t i = 0; i < 8; i++) {
		cr_assert_eq(s[i].sys, want[i].sys, "%zu", i);
		cr_assert_eq(s[i].len, want[i].len, "%zu", i);
		cr_assert_eq(s[i].why, want[i].why, "%zu: %s", i,
			     ua__insn_why(s[i].why));
		cr_assert_eq(s[i].hop_len, want[i].hop_len, "%zu", i);
	}
	/* More sites than room: the count says so. */
	cr_assert_eq(ua__insn_sweep(code, sizeof(code), 0x1000, s, 2, NULL), 8);
}

Test(insn, holes_are_padding_after_a_transfer)
{
	/* clang-format off */
	static const uint8_t code[] = {
		0xc3,					  /* 0x1000 ret */
		0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0, /* nopw: 10 */
		0x31, 0xc0,				  /* 0x100b xor */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* nops, not after a jump */
		0xeb, 0x00,				  /* 0x1013 jmp */
		0x90, 0x90, 0x90, 0x90,			  /* 4: too short */
		0xe9, 0, 0, 0, 0,			  /* 0x1019 jmp */
		0x41, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* xchg: not a jump */
		0x0f, 0x0b, 0x90, 0x90, 0x90, 0x90, 0x90, /* ud2: may go on */
		0xc3, 0xcc, 0xcc, 0xcc, 0x0f, 0x1f, 0x00, /* 0x102c: 6 */
		0xc3, 0x90, 0x90, 0x90, 0x90, 0x90,	  /* 0x1033: to the end */
	};
	/* clang-format on */
	struct ua__insn_hole h[4];

	cr_assert_eq(ua__insn_holes(code, sizeof(code), 0x1000, 4096, h, 4), 3);
	cr_assert_eq(h[0].addr, 0x1001);
	cr_assert_eq(h[0].len, 10);
	cr_assert_eq(h[1].addr, 0x102d);
	cr_assert_eq(h[1].len, 6);
	cr_assert_eq(h[2].addr, 0x1034);
	cr_assert_eq(h[2].len, 5);
	cr_assert_eq(h[0].used + h[1].used + h[2].used, 0);
	/* Never across a page: moved by 8, two of them cross one. */
	cr_assert_eq(ua__insn_holes(code, sizeof(code), 0xff8, 16, h, 4), 1);
	cr_assert_eq(h[0].addr, 0x1025);
}

Test(insn, sweep_resyncs_at_a_function_start)
{
	uint8_t code[48];
	struct ua__insn_site s[4];
	struct ua__sweep_stats st;

	memset(code, 0x90, sizeof(code));
	code[0] = 0x06; /* not an instruction */
	code[1] = 0xb8; /* mov $..., %eax: but in step with what? */
	memset(code + 2, 0, 4);
	code[6] = 0x0f;
	code[7] = 0x05;
	code[8] = 0xc3; /* ret, then nop padding to 0x10 */
	memcpy(code + 16, (uint8_t[]){ 0xb8, 1, 0, 0, 0, 0x0f, 0x05 }, 7);
	cr_assert_eq(sweep1(code, sizeof(code), s, &st), 2);
	cr_assert_eq(st.failures, 1);
	cr_assert_eq(s[0].sys, 0x1006);
	cr_assert_eq(s[0].why, UA_INSN_WHY_UNSYNCED);
	cr_assert_eq(s[0].len, 0);
	cr_assert_eq(s[1].sys, 0x1015);
	cr_assert_eq(s[1].why, UA_INSN_OK);
	cr_assert_eq(s[1].len, 5);
}

/* A section of an ELF file, mapped; NULL if it has none. */
static const uint8_t *section_of(const char *path, const char *name,
				 size_t *size, uint64_t *addr, void **map,
				 size_t *maplen)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *names;
	struct stat stt;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(fstat(fd, &stt), 0);
	*maplen = (size_t)stt.st_size;
	*map = mmap(NULL, *maplen, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(*map, MAP_FAILED);
	eh = *map;
	sh = (const Elf64_Shdr *)((const char *)*map + eh->e_shoff);
	names = (const char *)*map + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, name))
			continue;
		*size = sh[i].sh_size;
		*addr = sh[i].sh_addr;
		return (const uint8_t *)*map + sh[i].sh_offset;
	}
	return NULL;
}

static const uint8_t *text_of(const char *path, size_t *size, uint64_t *addr,
			      void **map, size_t *maplen)
{
	return section_of(path, ".text", size, addr, map, maplen);
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/*
 * Every instruction objdump finds in the .text of path decodes to the
 * same length here, and the sweep finds exactly objdump's syscalls.
 */
static void against_objdump(const char *path)
{
	char cmd[512], line[512];
	size_t size, maplen, nins = 0, nsys = 0, nsites, fails = 0;
	uint64_t addr;
	void *map;
	const uint8_t *text = text_of(path, &size, &addr, &map, &maplen);
	struct ua__insn_site *sites;
	struct ua__sweep_stats st;
	FILE *f;

	cr_assert_not_null(text, "%s has a .text", path);
	sites = calloc(size / 2 + 1, sizeof(*sites));
	cr_assert_not_null(sites);
	nsites = ua__insn_sweep(text, size, addr, sites, size / 2 + 1, &st);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .text --insn-width=16 '%s'",
		 path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		uint8_t b[16];
		char *p, *tab;
		unsigned long long at;
		struct ua__insn in;
		int n = 0;

		if (sscanf(line, " %llx:\t", &at) != 1 || !strchr(line, '\t'))
			continue;
		p = strchr(line, '\t') + 1;
		tab = strchr(p, '\t');
		if (!tab || strstr(tab, "(bad)"))
			continue;
		while (p < tab && n < 16 && p[0] != ' ') {
			b[n++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
			p += 3;
		}
		nins++;
		if (ua__insn_decode(b, (size_t)n, &in) != n) {
			if (fails++ < 10)
				cr_log_error("%s %llx: %d, objdump %d: %s",
					     path, at, in.len, n, line);
			continue;
		}
		if (in.syscall) {
			cr_assert_lt(nsys, nsites, "%s %llx", path, at);
			cr_assert_eq(sites[nsys].sys, at, "%s: syscall %zu",
				     path, nsys);
			nsys++;
		}
	}
	pclose(f);
	cr_assert_gt(nins, 1000, "%s: objdump decoded %zu", path, nins);
	cr_assert_eq(fails, 0, "%s: %zu of %zu lengths differ", path, fails,
		     nins);
	cr_assert_eq(nsys, nsites, "%s: %zu syscalls, the sweep %zu", path,
		     nsys, nsites);
	cr_assert_eq(st.failures, 0, "%s", path);
	cr_assert_eq(st.insns, nins, "%s", path);
	free(sites);
	munmap(map, maplen);
}

/* The library this test runs with whose file name has name in it. */
static void lib_path(const char *name, char *buf, size_t len)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[1024];

	cr_assert_not_null(m);
	buf[0] = 0;
	while (fgets(line, sizeof(line), m)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, name)) {
			p[strcspn(p, "\n")] = 0;
			snprintf(buf, len, "%s", p);
			break;
		}
	}
	fclose(m);
	cr_assert_neq(buf[0], 0, "%s in /proc/self/maps", name);
}

/* The C library this test runs with. */
static void libc_path(char *buf, size_t len)
{
	lib_path("/libc.so", buf, len);
}

Test(insn, every_libc_instruction, .timeout = 120)
{
	char path[1024];

	libc_path(path, sizeof(path));
	against_objdump(path);
}

Test(insn, every_busybox_instruction, .timeout = 120)
{
	/* tools/install-deps installs busybox-static for tests/linux. */
	if (access("/bin/busybox", R_OK))
		cr_skip_test("no /bin/busybox (busybox-static not installed)");
	against_objdump("/bin/busybox");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The function starts of path's .eh_frame (ua__eh_frame_starts()) are
 * exactly the starts of readelf's FDEs that cover any bytes.
 */
static void starts_against_readelf(const char *path)
{
	char cmd[512], line[512];
	size_t size, maplen, n = 0, k = 0, room = 1024;
	uint64_t addr, *want = malloc(room * sizeof(*want)), *got;
	void *map;
	const uint8_t *eh =
		section_of(path, ".eh_frame", &size, &addr, &map, &maplen);
	long ngot;
	FILE *f;

	cr_assert_not_null(eh, "%s has an .eh_frame", path);
	ngot = ua__eh_frame_starts(eh, size, addr, &got);
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char *pc = strstr(line, " FDE ");

		if (!pc || !(pc = strstr(pc, "pc=")) ||
		    sscanf(pc, "pc=%llx..%llx", &lo, &hi) != 2 || lo == hi)
			continue;
		if (n == room)
			want = realloc(want, (room *= 2) * sizeof(*want));
		want[n++] = lo;
	}
	pclose(f);
	qsort(want, n, sizeof(*want), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || want[k - 1] != want[i])
			want[k++] = want[i];
	n = k;
	cr_assert_gt(n, 100, "%s: readelf listed %zu FDEs", path, n);
	cr_assert_eq(ngot, (long)n, "%s: %ld starts, readelf %zu", path, ngot,
		     n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i],
			     "%s: start %zu: %#lx, readelf %#lx", path, i,
			     (unsigned long)got[i], (unsigned long)want[i]);
	free(got);
	free(want);
	munmap(map, maplen);
}

Test(insn, eh_frame_starts_libc)
{
	char path[1024];

	libc_path(path, sizeof(path));
	starts_against_readelf(path);
}

Test(insn, eh_frame_starts_busybox)
{
	if (access("/bin/busybox", R_OK))
		cr_skip_test("no /bin/busybox (busybox-static not installed)");
	starts_against_readelf("/bin/busybox");
}

Test(insn, eh_frame_bad_input)
{
	/* A CIE "zR" with pcrel|sdata4, then an FDE for 0x100 bytes at +0x40. */
	uint8_t eh[64] = {
		0x14, 0,    0,	  0, 0,	   0,	 0, 0, 1,    'z', 'R', 0,
		1,    0x78, 0x10, 1, 0x1b, 0x0c, 7, 8, 0x90, 1,	  0,   0,
		0x14, 0,    0,	  0, 0x1c, 0,	 0, 0, 0x40, 0,	  0,   0,
		0,    1,    0,	  0, 0,	   0,	 0, 0, 0,    0,	  0,   0,
	};
	uint64_t *v;

	cr_assert_eq(ua__eh_frame_starts(eh, 48, 0x1000, &v), 1);
	/* pc_begin at 0x1000 + 32, plus 0x40 */
	cr_assert_eq(v[0], 0x1000 + 32 + 0x40);
	free(v);
	/* Cut anywhere, or with a length past the end: nothing read wrong. */
	for (size_t len = 0; len < 48; len++) {
		long n = ua__eh_frame_starts(eh, len, 0x1000, &v);

		cr_assert(n == 0 || (n == 1 && v[0] == 0x1000 + 32 + 0x40),
			  "cut at %zu: %ld", len, n);
		free(n > 0 ? v : NULL);
	}
	eh[24] = 0xff;
	cr_assert_eq(ua__eh_frame_starts(eh, 48, 0x1000, &v), 0);
	eh[24] = 0x14;
	eh[28] = 0x40; /* the FDE's CIE before the section */
	cr_assert_eq(ua__eh_frame_starts(eh, 48, 0x1000, &v), 0);
	eh[28] = 0x1c;
	eh[16] = 0x3b; /* an encoding not known: datarel (0x30) | sdata4 */
	cr_assert_eq(ua__eh_frame_starts(eh, 48, 0x1000, &v), 0);
}

/*
 * What the patch trap relies on to skip a full sweep: a sweep that
 * starts at an unwind table's function start, 160 bytes or more before a
 * site, and ends at one as far after it, finds that site as the sweep of
 * the whole section does, and only holes the whole sweep finds.
 */
static void scans_against_sweep(const char *path)
{
	size_t size, maplen, ehsize, ehmaplen, nsites, nholes, checked = 0;
	uint64_t addr, ehaddr, *fn;
	void *map, *ehmap;
	const uint8_t *text = text_of(path, &size, &addr, &map, &maplen);
	const uint8_t *eh = section_of(path, ".eh_frame", &ehsize, &ehaddr,
				       &ehmap, &ehmaplen);
	struct ua__insn_scan all = { .pagesz = 4096 };
	long nfn;

	cr_assert_not_null(text);
	cr_assert_not_null(eh);
	nfn = ua__eh_frame_starts(eh, ehsize, ehaddr, &fn);
	cr_assert_gt(nfn, 100);
	all.max_sites = size / 2 + 1;
	all.max_holes = size / 5 + 1;
	all.sites = calloc(all.max_sites, sizeof(*all.sites));
	all.holes = calloc(all.max_holes, sizeof(*all.holes));
	ua__insn_scan(text, size, addr, &all);
	nsites = all.nsites;
	nholes = all.nholes;
	for (size_t i = 0; i < nsites; i++) {
		const struct ua__insn_site *want = &all.sites[i];
		struct ua__insn_scan near = { .pagesz = 4096 };
		uint64_t lo = addr, hi = addr + size;
		bool found = false;
		size_t h = 0;

		for (long k = 0; k < nfn; k++) {
			if (fn[k] >= addr && fn[k] + 160 <= want->sys)
				lo = fn[k];
			if (fn[k] >= want->sys + 160 && fn[k] < hi)
				hi = fn[k];
		}
		near.max_sites = near.max_holes = hi - lo;
		near.sites = calloc(hi - lo, sizeof(*near.sites));
		near.holes = calloc(hi - lo, sizeof(*near.holes));
		ua__insn_scan(text + (lo - addr), hi - lo, lo, &near);
		for (size_t j = 0; j < near.nsites; j++) {
			const struct ua__insn_site *got = &near.sites[j];

			if (got->sys != want->sys)
				continue;
			found = true;
			cr_assert(got->len == want->len &&
					  got->why == want->why &&
					  got->hop_len == want->hop_len,
				  "%s %#lx: near %u/%u/%u, sweep %u/%u/%u",
				  path, (unsigned long)want->sys, got->len,
				  got->why, got->hop_len, want->len, want->why,
				  want->hop_len);
		}
		cr_assert(found, "%s %#lx: not found near", path,
			  (unsigned long)want->sys);
		for (size_t j = 0; j < near.nholes; j++) {
			const struct ua__insn_hole *g = &near.holes[j];

			while (h < nholes && all.holes[h].addr < g->addr)
				h++;
			cr_assert(
				h < nholes && all.holes[h].addr == g->addr &&
					g->len <= all.holes[h].len,
				"%s: hole %#lx+%u near %#lx is not the sweep's",
				path, (unsigned long)g->addr, g->len,
				(unsigned long)want->sys);
		}
		checked++;
		free(near.sites);
		free(near.holes);
	}
	cr_assert_gt(checked, 10, "%s: %zu sites", path, checked);
	free(all.sites);
	free(all.holes);
	free(fn);
	munmap(map, maplen);
	munmap(ehmap, ehmaplen);
}

Test(insn, scans_near_sites_busybox, .timeout = 120)
{
	if (access("/bin/busybox", R_OK))
		cr_skip_test("no /bin/busybox (busybox-static not installed)");
	scans_against_sweep("/bin/busybox");
}

Test(insn, scans_near_sites_libc, .timeout = 120)
{
	char path[1024];

	libc_path(path, sizeof(path));
	scans_against_sweep(path);
}

struct priv_case {
	const char *what;
	uint8_t b[8];
	int n;
	int at; /* where the 0f is, or -1: nothing to find */
	int kind;
};

static const struct priv_case priv_cases[] = {
	{ "wrpkru", { 0x0f, 0x01, 0xef }, 3, 0, UA_PRIV_WRPKRU },
	{ "rdpkru", { 0x0f, 0x01, 0xee }, 3, -1, 0 },
	{ "xrstor (%rax)", { 0x0f, 0xae, 0x28 }, 3, 0, UA_PRIV_XRSTOR },
	{ "xrstor 0x40(%rsp)", { 0x0f, 0xae, 0x6c, 0x24, 0x40 }, 5, 0,
	  UA_PRIV_XRSTOR },
	{ "xrstor64 (%rax)", { 0x48, 0x0f, 0xae, 0x28 }, 4, 1,
	  UA_PRIV_XRSTOR },
	{ "xrstor 0x100(%rbx)", { 0x0f, 0xae, 0xab, 0, 1, 0, 0 }, 7, 0,
	  UA_PRIV_XRSTOR },
	{ "xsave (%rax)", { 0x0f, 0xae, 0x20 }, 3, -1, 0 },
	{ "fxrstor (%rax)", { 0x0f, 0xae, 0x08 }, 3, -1, 0 },
	{ "lfence", { 0x0f, 0xae, 0xe8 }, 3, -1, 0 },
	{ "mfence", { 0x0f, 0xae, 0xf0 }, 3, -1, 0 },
	{ "sfence", { 0x0f, 0xae, 0xf8 }, 3, -1, 0 },
	{ "xrstors (%rax)", { 0x0f, 0xc7, 0x18 }, 3, 0, UA_PRIV_XRSTORS },
	{ "xrstors64 (%rdi)", { 0x48, 0x0f, 0xc7, 0x1f }, 4, 1,
	  UA_PRIV_XRSTORS },
	{ "cmpxchg8b (%rax)", { 0x0f, 0xc7, 0x08 }, 3, -1, 0 },
	{ "rdrand %eax", { 0x0f, 0xc7, 0xf0 }, 3, -1, 0 },
	{ "wrfsbase %rax", { 0xf3, 0x48, 0x0f, 0xae, 0xd0 }, 5, 2,
	  UA_PRIV_WRFSBASE },
	{ "wrfsbase %eax", { 0xf3, 0x0f, 0xae, 0xd0 }, 4, 1,
	  UA_PRIV_WRFSBASE },
	{ "wrgsbase %r8", { 0xf3, 0x49, 0x0f, 0xae, 0xd8 }, 5, 2,
	  UA_PRIV_WRGSBASE },
	{ "data16 wrgsbase", { 0xf3, 0x66, 0x0f, 0xae, 0xd8 }, 5, 2,
	  UA_PRIV_WRGSBASE },
	{ "rdfsbase %rax", { 0xf3, 0x48, 0x0f, 0xae, 0xc0 }, 5, -1, 0 },
	{ "rdgsbase %rax", { 0xf3, 0x48, 0x0f, 0xae, 0xc8 }, 5, -1, 0 },
	{ "0f ae d0 without f3 (#UD)", { 0x0f, 0xae, 0xd0 }, 3, -1, 0 },
	{ "f3, nop, 0f ae d0", { 0xf3, 0x90, 0x0f, 0xae, 0xd0 }, 5, -1, 0 },
	{ "wrpkru inside mov $imm32", { 0xb8, 0x0f, 0x01, 0xef, 0x00 }, 5,
	  1, UA_PRIV_WRPKRU },
	{ "xrstor cut short", { 0x0f, 0xae }, 2, -1, 0 },
};

/* Each case at every offset of 16 bytes of nops, and at their end. */
Test(insn, priv_known_encodings)
{
	for (size_t c = 0; c < sizeof(priv_cases) / sizeof(priv_cases[0]);
	     c++) {
		const struct priv_case *k = &priv_cases[c];

		for (int off = 0; off <= 16; off++) {
			uint8_t buf[32];
			size_t n = (size_t)off + (size_t)k->n, got;
			int kind = -1;

			memset(buf, 0x90, sizeof(buf));
			memcpy(buf + off, k->b, (size_t)k->n);
			/* Cut short cases are cut at the end of the range. */
			if (k->at >= 0)
				n += 4;
			got = ua__priv_scan(buf, n, &kind);
			if (k->at < 0) {
				cr_assert_eq(got, n, "%s at %d: found at %zu",
					     k->what, off, got);
				cr_assert_eq(kind, UA_PRIV_NONE, "%s", k->what);
				continue;
			}
			cr_assert_eq(got, (size_t)(off + k->at),
				     "%s at %d: %zu", k->what, off, got);
			cr_assert_eq(kind, k->kind, "%s: %s", k->what,
				     ua__priv_name(kind));
		}
	}
	cr_assert_str_eq(ua__priv_name(UA_PRIV_WRPKRU), "wrpkru");
	cr_assert_str_eq(ua__priv_name(99), "?");
}

/* Only bytes before the 0f, inside the range, can be its F3 prefix. */
Test(insn, priv_prefix_outside_the_range)
{
	const uint8_t b[] = { 0xf3, 0x48, 0x0f, 0xae, 0xd0 };
	int kind;

	cr_assert_eq(ua__priv_scan(b + 1, 4, &kind), 4);
	cr_assert_eq(ua__priv_scan(b, 5, &kind), 2);
	cr_assert_eq(kind, UA_PRIV_WRFSBASE);
	cr_assert_eq(ua__priv_scan(b, 0, &kind), 0);
}

static int priv_kind_of(const char *mnemonic)
{
	static const struct {
		const char *name;
		int kind;
	} names[] = {
		{ "wrpkru", UA_PRIV_WRPKRU },	  { "xrstor", UA_PRIV_XRSTOR },
		{ "xrstor64", UA_PRIV_XRSTOR },	  { "xrstors", UA_PRIV_XRSTORS },
		{ "xrstors64", UA_PRIV_XRSTORS }, { "wrfsbase", UA_PRIV_WRFSBASE },
		{ "wrgsbase", UA_PRIV_WRGSBASE },
	};
	size_t len = strcspn(mnemonic, " \n");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(mnemonic, names[i].name, len))
			return names[i].kind;
	return UA_PRIV_NONE;
}

/*
 * Every PKRU or base write objdump shows in the .text of path is found,
 * as what objdump calls it, inside the instruction's bytes; the scan's
 * other finds (bytes inside other instructions) are counted in the log.
 * Returns how many objdump showed.
 */
static size_t priv_against_objdump(const char *path)
{
	char cmd[512], line[512];
	size_t size, maplen, shown = 0, hits = 0, at = 0;
	uint64_t addr;
	void *map;
	const uint8_t *text = text_of(path, &size, &addr, &map, &maplen);
	uint64_t *found;
	int *kinds;
	FILE *f;

	cr_assert_not_null(text, "%s has a .text", path);
	found = calloc(size / 3 + 1, sizeof(*found));
	kinds = calloc(size / 3 + 1, sizeof(*kinds));
	cr_assert(found && kinds);
	for (;;) {
		int kind;
		size_t i = ua__priv_scan(text + at, size - at, &kind) + at;

		if (i >= size)
			break;
		found[hits] = addr + i;
		kinds[hits++] = kind;
		at = i + 1;
	}
	snprintf(cmd, sizeof(cmd), "objdump -d -j .text --insn-width=16 '%s'",
		 path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ia;
		char *p, *tab;
		int n = 0, kind;
		size_t h;

		if (sscanf(line, " %llx:\t", &ia) != 1 || !strchr(line, '\t'))
			continue;
		p = strchr(line, '\t') + 1;
		tab = strchr(p, '\t');
		if (!tab || !(kind = priv_kind_of(tab + 1)))
			continue;
		for (; p < tab && p[0] != ' '; p += 3)
			n++;
		shown++;
		for (h = 0; h < hits; h++)
			if (found[h] >= ia && found[h] < ia + (unsigned)n)
				break;
		cr_assert_lt(h, hits, "%s %llx: %s not found", path, ia, line);
		cr_assert_eq(kinds[h], kind, "%s %llx: %s, objdump: %s", path,
			     ia, ua__priv_name(kinds[h]), line);
	}
	pclose(f);
	cr_log_info("%s: objdump shows %zu, the scan finds %zu", path, shown,
		    hits);
	free(found);
	free(kinds);
	munmap(map, maplen);
	return shown;
}

Test(insn, priv_scan_libc, .timeout = 120)
{
	char path[1024];

	libc_path(path, sizeof(path));
	priv_against_objdump(path);
}

/* glibc's lazy binding saves and restores with XSAVE and XRSTOR. */
Test(insn, priv_scan_dynamic_linker, .timeout = 120)
{
	char path[1024];

	lib_path("/ld-linux-x86-64.so", path, sizeof(path));
	priv_against_objdump(path);
}

Test(insn, priv_scan_busybox, .timeout = 120)
{
	if (access("/bin/busybox", R_OK))
		cr_skip_test("no /bin/busybox (busybox-static not installed)");
	priv_against_objdump("/bin/busybox");
}
