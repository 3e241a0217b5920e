/*
 * audit.c - decides whether a submission's object may be linked with the
 * trusted harness.
 *
 * Owns: the rules on symbols. The object may define the contract's functions
 * and C++ (mangled) names such as its kernels, nothing that would replace a
 * function of the harness, the C or C++ runtime or CUDA, and no main. It may
 * call only functions on the allow-list. Runs no program: grade.c runs nm and
 * readelf and hands their output here.
 */
#include "audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "_Z9matmul_k3PKfS0_Pfi" defines matmul_k3 with C++ linkage. */
static bool mangled_form_of(const char *sym, const char *plain)
{
	size_t n = strlen(plain);
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "_Z%zu%s", n, plain);
	return !strncmp(sym, prefix, strlen(prefix));
}

/*
 * Whether sym, defined with C linkage, is a kernel (extern "C" __global__):
 * nvcc then defines its device stub "_Z<n>__device_stub__Z<len>sym...".
 */
static bool extern_c_kernel(const struct strlist *defined, const char *sym)
{
	char *want = xasprintf("__device_stub__Z%zu%s", strlen(sym), sym);
	bool found = false;

	for (size_t i = 0; i < defined->n && !found; i++) {
		const char *d = defined->v[i];
		if (strncmp(d, "_Z", 2))
			continue;
		d += 2 + strspn(d + 2, "0123456789");
		found = !strncmp(d, want, strlen(want));
	}
	free(want);
	return found;
}

/*
 * The first line of the source that names `name` as a whole word outside a
 * comment and a directive, as "\n  FILE:LINE: TEXT"; "" when none does (the
 * call came from a header or a macro the line does not spell out).
 */
static char *quote_line(const struct audit_rules *rules, const char *name)
{
	const char *line = rules->source;
	size_t n = strlen(name);
	bool in_comment = false;   /* inside a comment that opened on an earlier line */

	for (int no = 1; line && *line; no++) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		/* the line with its comments blanked, and nothing of a directive's */
		char *code = xstrndup(line, len);
		for (size_t i = 0; i < len; i++) {
			if (in_comment) {
				if (code[i] == '*' && i + 1 < len && code[i + 1] == '/') {
					in_comment = false;
					code[i + 1] = ' ';
				}
				code[i] = ' ';
			} else if (code[i] == '/' && i + 1 < len && code[i + 1] == '*') {
				in_comment = true;
				code[i] = code[i + 1] = ' ';
				i++;
			} else if (code[i] == '/' && i + 1 < len && code[i + 1] == '/') {
				memset(code + i, ' ', len - i);
				break;
			}
		}
		if (*(code + strspn(code, " \t")) == '#')
			memset(code, ' ', len);   /* a directive (#include <sys/socket.h>) makes no call */
		for (const char *p = code; (p = memmem(p, len - (size_t)(p - code), name, n)); p += n) {
			if ((p == code || !ident_char(p[-1])) && (p + n >= code + len || !ident_char(p[n]))) {
				const char *t = line + strspn(line, " \t");
				free(code);
				return xasprintf("\n  %s:%d: %.*s", rules->source_name, no,
						 (int)(len - (t - line) > 160 ? 160 : len - (t - line)), t);
			}
		}
		free(code);
		line = end ? end + 1 : NULL;
	}
	return xstrdup("");
}

void audit_symbols(const char *nm_output, const struct audit_rules *rules,
		   struct strlist *problems)
{
	struct strlist defined = STRLIST_INIT, undefined = STRLIST_INIT;
	const char *line = nm_output;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char name[512], type = 0;

		/* nm -P: "name type [value size]" */
		if (len < sizeof(name) && sscanf(line, "%511s %c", name, &type) == 2) {
			if ((type == 'W' || type == 'V') &&
			    strlist_matches(rules->allow_weak, name))
				;  /* an inline library function the headers instantiated */
			else if (type == 'U' || type == 'w' || type == 'v')
				strlist_push(&undefined, name);
			else if ((type >= 'A' && type <= 'Z') || type == 'u')
				strlist_push(&defined, name);
		}
		line = end ? end + 1 : NULL;
	}

	for (size_t i = 0; i < defined.n; i++) {
		const char *s = defined.v[i];
		if (strlist_has(rules->contract, s))
			continue;
		if (!strcmp(s, "main"))
			strlist_push(problems, "defines main(): the harness provides main, remove yours");
		else if (strlist_matches(rules->deny_defined, s))
			strlist_pushf(problems, "defines '%s', a name reserved for the runtime or the "
				      "harness", s);
		else if (strncmp(s, "_Z", 2) && strncmp(s, "DW.ref.", 7) &&
			 !extern_c_kernel(&defined, s) &&
			 !(rules->nvcc_globals && strlist_has(rules->nvcc_globals, s)))
			strlist_pushf(problems, "defines the global symbol '%s', which is not part of the "
				      "lab's interface\nhint: declare helper functions and variables static",
				      s);
	}
	for (size_t i = 0; rules->contract && i < rules->contract->n; i++) {
		const char *want = rules->contract->v[i];
		bool cxx = false;
		if (strlist_has(&defined, want))
			continue;
		for (size_t j = 0; j < defined.n; j++)
			cxx |= mangled_form_of(defined.v[j], want);
		if (cxx)
			strlist_pushf(problems, "defines %s with C++ linkage, so the harness cannot find it"
				      "\nhint: #include the lab's header, which declares it extern \"C\"",
				      want);
		else
			strlist_pushf(problems, "does not define %s, which the lab's header declares", want);
	}
	for (size_t i = 0; i < undefined.n; i++) {
		if (strlist_matches(rules->allow_undefined, undefined.v[i]))
			continue;
		char *where = rules->source ? quote_line(rules, undefined.v[i]) : xstrdup("");
		strlist_pushf(problems, "calls '%s', which submissions to this lab may not use%s",
			      undefined.v[i], where);
		free(where);
	}
	strlist_clear(&defined);
	strlist_clear(&undefined);
}

/* The function a line of `objdump -dr` output heads ("0000000000000120 <name>:"), or 0. */
static size_t function_head(const char *line, size_t len, const char **name)
{
	const char *lt = memchr(line, '<', len);

	if (!lt || len < 3 || line[len - 1] != ':' || line[len - 2] != '>' ||
	    strspn(line, "0123456789abcdef") != (size_t)(lt - 1 - line) || lt[-1] != ' ')
		return 0;
	*name = lt + 1;
	return (size_t)(line + len - 2 - *name);
}

/* The name nvcc's host copy _ZL3c_n stands for (c_n), or NULL for another name. */
static const char *shadow_of(const char *name)
{
	unsigned long n;
	int at = 0;

	if (sscanf(name, "_ZL%lu%n", &n, &at) == 1 && at && strlen(name + at) == n)
		return name + at;
	return NULL;
}

/* Whether a variable of nvcc's object is nvcc's own (__cudaFatCubinHandle,
 * __fatDeviceText, fatbinData, a stub's statics) or a string's (.LC5). */
static bool nvcc_own(const char *name)
{
	return name[0] == '.' || strstr(name, "__cuda") || strstr(name, "__fatDeviceText") ||
	       strstr(name, "__device_stub_") || strstr(name, "__nv_") ||
	       !strcmp(name, "fatbinData");
}

/* One variable of `nm -P` output: its name, nm's letter and its value. */
struct nm_var {
	char name[512];
	char type;
	unsigned long value;
};

/*
 * The variables of `nm -P` output (b, B, d, D, r, R; u and V, C++17's
 * inline ones and a template's static members); *n of them.
 */
static struct nm_var *nm_variables(const char *nm_output, size_t *n)
{
	struct nm_var *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (const char *line = nm_output; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		struct nm_var one;
		char copy[640];

		if (len < sizeof(copy)) {
			memcpy(copy, line, len);
			copy[len] = '\0';
			if (sscanf(copy, "%511s %c %lx", one.name, &one.type, &one.value) == 3 &&
			    strchr("bBdDrRuV", one.type)) {
				if (*n == cap)
					v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
				v[(*n)++] = one;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return v;
}

/*
 * The variable a relocation of nvcc's registration names: "_ZL4dbuf-0x4",
 * or "SECTION+0xOFF" (a local symbol by its section: the one whose value
 * is OFF + 4, as a RIP-relative operand's addend has it, else OFF), or
 * NULL.
 */
static const char *relocated_variable(const char *target, const struct nm_var *vars, size_t n)
{
	static const char *const sections[][2] = {{".bss", "bB"}, {".data", "dD"}, {".rodata", "rR"}};
	char name[512];
	size_t len = strcspn(target, "+-");

	if (!len || len >= sizeof(name))
		return NULL;
	memcpy(name, target, len);
	name[len] = '\0';
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		if (strcmp(name, sections[s][0]))
			continue;
		long off = target[len] ? strtol(target + len, NULL, 16) : 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < n; i++)
				if (strchr(sections[s][1], vars[i].type) &&
				    (long)vars[i].value == off + (pass ? 0 : 4))
					return vars[i].name;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vars[i].name, name))
			return vars[i].name;
	return NULL;
}

void audit_host_data(const char *nm_output, const char *disasm, struct strlist *names,
		     struct strlist *device_names)
{
	size_t n;
	struct nm_var *vars = nm_variables(nm_output, &n);
	struct strlist device = STRLIST_INIT;
	bool registering = false, registration = false;

	/*
	 * Every variable the registration names is a device one (or nvcc's
	 * own): it names nothing of the host's but the fatbinary's handle.
	 */
	for (const char *line = disasm; line && *line;) {
		const char *end = strchr(line, '\n'), *fn, *reloc, *var;
		size_t len = end ? (size_t)(end - line) : strlen(line), fl;
		char target[512];

		if ((fl = function_head(line, len, &fn))) {
			char head[512];
			snprintf(head, sizeof(head), "%.*s", (int)fl, fn);
			/* the fatbinary's registration, inlined or a function of its own */
			registering = strstr(head, "cudaRegisterAll") ||
				      strstr(head, "cudaEntityRegisterCallback");
			registration |= registering;
		} else if (registering && (reloc = memmem(line, len, "R_X86_64_", 9)) &&
			   sscanf(reloc, "%*s %511s", target) == 1 &&
			   (var = relocated_variable(target, vars, n)) && !strlist_has(&device, var)) {
			strlist_push(&device, var);
		}
		line = end ? end + 1 : NULL;
	}
	/* no registration seen (another nvcc's layout): nothing is told apart */
	if (!registration)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = vars[i].name;
		/* read-only data no kernel can change, a device variable, nvcc's own */
		if (strchr("rR", vars[i].type) || strlist_has(&device, s) || nvcc_own(s) ||
		    strlist_has(names, s))
			continue;
		strlist_push(names, s);
	}
	for (size_t i = 0; device_names && i < device.n; i++) {
		const char *s = device.v[i], *shadowed = shadow_of(s);
		if (nvcc_own(s))
			continue;
		/* _ZL3c_n: the emulator's c_n, or the same _ZL3c_n where it was static */
		if (shadowed && !strlist_has(device_names, shadowed))
			strlist_push(device_names, shadowed);
		if (!strlist_has(device_names, s))
			strlist_push(device_names, s);
	}
	strlist_clear(&device);
	free(vars);
}

void audit_nvcc_globals(const char *nm_output, struct strlist *names)
{
	struct strlist defined = STRLIST_INIT;

	for (const char *line = nm_output; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char name[512], type = 0;
		const char *shadowed;

		/* "_ZL3c_n b 68 4": a variable of internal linkage, its name's length, its name */
		if (len < sizeof(name) && sscanf(line, "%511s %c", name, &type) == 2) {
			if (strchr("bdr", type) && (shadowed = shadow_of(name)) &&
			    !strlist_has(names, shadowed))
				strlist_push(names, shadowed);
			else if (type == 'T')
				strlist_push(&defined, name);
		}
		line = end ? end + 1 : NULL;
	}
	for (size_t i = 0; i < defined.n; i++)
		if (strncmp(defined.v[i], "_Z", 2) && extern_c_kernel(&defined, defined.v[i]) &&
		    !strlist_has(names, defined.v[i]))
			strlist_push(names, defined.v[i]);
	strlist_clear(&defined);
}

/* What the initialiser <iostream> puts in every file that includes it may refer to. */
static bool ioinit_target(const char *sym, size_t n)
{
	static const char *const ok[] = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev",
					 "__cxa_atexit", "__dso_handle", "_ZStL8__ioinit",
					 "_GLOBAL_OFFSET_TABLE_"};

	if (n > 1 && sym[0] == '.' && (n < 5 || strncmp(sym, ".text", 5)))
		return true;  /* data: .bss (the ios_base::Init object), .rodata */
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (strlen(ok[i]) == n && !strncmp(sym, ok[i], n))
			return true;
	return false;
}

/* Whether the disassembly's line at line is a relocation ("\t\t\t12c: R_X86_64_PLT32\t..."). */
static bool relocated(const char *line)
{
	const char *end = strchr(line, '\n');
	size_t len = end ? (size_t)(end - line) : strlen(line);

	return line[0] == '\t' && memmem(line, len, ": R_X86_64_", 11);
}

/*
 * Whether the function `name` of the disassembly does nothing but what
 * <iostream>'s initialiser does: construct the library's ios_base::Init and
 * register its destructor. Every call, jump and relocation of it is checked;
 * a call of gcc's helper __static_initialization_and_destruction_0 (what -O0
 * makes) is followed. depth bounds that.
 */
static bool only_ioinit(const char *disasm, const char *name, size_t name_len, int depth,
			bool emulated)
{
	const char *line = disasm;
	bool in = false, seen = false;
	/* the address of a function of the object's, loaded for a registration
	 * of the emulator's, which the next relocation must then be */
	bool pending = false;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *fn;
		size_t len = end ? (size_t)(end - line) : strlen(line), n;

		if ((n = function_head(line, len, &fn))) {
			in = n == name_len && !strncmp(fn, name, n);
			seen |= in;
		} else if (in) {
			const char *r = relocated(line) ? memmem(line, len, ": R_", 4) : NULL, *t;
			if (r) {
				/* "\t\t\t12c: R_X86_64_PLT32\t_ZNSt8ios_base4InitC1Ev-0x4" */
				t = memchr(r, '\t', line + len - r);
				if (!t)
					return false;
				t++;
				n = strcspn(t, "+-\n");
				bool registers = emulated && n == 19 && !strncmp(t, "cudaemu_file_shared", n);
				bool address = emulated && n >= 5 && !strncmp(t, ".text", 5) &&
					       memmem(r, (size_t)(t - r), "R_X86_64_PC32", 13);
				if (pending && !registers)
					return false;
				pending = address;
				if (!address && !registers && !ioinit_target(t, n))
					return false;
			} else if (end && !relocated(end + 1) && (t = memchr(line, '<', len))) {
				/*
				 * An instruction that names code without a relocation:
				 * a call, a jump. (Where a relocation follows, objdump's
				 * name is the placeholder's, and the relocation is
				 * what counts.)
				 */
				t++;
				n = strcspn(t, "+>");
				/* within the function (or a relocation's placeholder) is fine */
				bool within = n == name_len && !strncmp(t, name, n);
				bool helper = memmem(t, n, "__static_initialization_and_destruction", 39);
				if (!within && !(helper && depth > 0 &&
						 only_ioinit(disasm, t, n, depth - 1, emulated)))
					return false;
			}
			if (!r && memchr(line, '*', len) && (memmem(line, len, "\tcall", 5) ||
							     memmem(line, len, "\tjmp", 4)))
				return false;  /* an indirect call or jump */
		}
		line = end ? end + 1 : NULL;
	}
	return seen && !pending;
}

/* Whether the one file initialiser gcc made (_GLOBAL__sub_I_...) only sets up <iostream>. */
static bool iostream_initialiser_only(const char *disasm, bool emulated)
{
	const char *line = disasm, *init = NULL, *fn;
	size_t init_len = 0, n;
	int count = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if ((n = function_head(line, len, &fn)) && !strncmp(fn, "_GLOBAL__sub_I_", 15)) {
			init = fn;
			init_len = n;
			count++;
		}
		line = end ? end + 1 : NULL;
	}
	return count == 1 && only_ioinit(disasm, init, init_len, 2, emulated);
}

unsigned long audit_constructors(const char *readelf_output, unsigned long own)
{
	const char *p = readelf_output;
	unsigned long entries = 0;

	while (p && (p = strstr(p, " .init_array"))) {
		unsigned long addr, off, size;
		char type[32];
		p += strlen(" .init_array");
		/* "[Nr] Name Type Address Off Size ...": 8 bytes an entry */
		if (sscanf(p, " %31s %lx %lx %lx", type, &addr, &off, &size) == 4)
			entries += size / 8;
	}
	return entries > own ? entries - own : 0;
}

/*
 * The name of the section a line of `readelf -S -W` output describes
 * ("  [ 5] .init_array       INIT_ARRAY      0000000000000000 ..."): what lies
 * between "] " and the type, the word before the 16 digits of the address;
 * NULL for any other line. Allocated.
 */
static char *section_name(const char *line, size_t len)
{
	const char *p = line + strspn(line, " "), *end = line + len, *type = NULL;

	if (p >= end || *p != '[' || !(p = memchr(p, ']', (size_t)(end - p))))
		return NULL;
	p++;
	for (const char *w = p, *prev = NULL; w < end;) {
		w += strspn(w, " ");
		size_t n = strcspn(w, " \n");
		if (w + n > end)
			n = (size_t)(end - w);
		if (n == 16 && strspn(w, "0123456789abcdef") == 16) {
			type = prev;
			break;
		}
		prev = w;
		w += n;
	}
	if (!type)
		return NULL;
	p += strspn(p, " ");
	const char *q = type;
	while (q > p && q[-1] == ' ')
		q--;
	return xstrndup(p, (size_t)(q - p));
}

/* The student's line that names name, as quote_line() gives it; "" without the source. */
static char *section_quote(const struct section_rules *rules, const char *name)
{
	struct audit_rules quote = {.source = rules->source, .source_name = rules->source_name};
	return rules->source ? quote_line(&quote, name) : xstrdup("");
}

void audit_sections(const char *readelf_output, const char *disasm,
		    const struct section_rules *rules, struct strlist *problems)
{
	unsigned long extra = audit_constructors(readelf_output, rules->own_constructors);
	bool thread_local_said = false;

	for (const char *l = readelf_output; rules->allow && l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char *name = section_name(l, len);
		bool tls = name && (!strncmp(name, ".tbss", 5) || !strncmp(name, ".tdata", 6));
		if (tls && !rules->emulated && !thread_local_said) {
			/* a host thread's own variable, which a kernel reaches emulated
			 * (the emulator's __shared__ arrays are its workers': its own
			 * object has them, nvcc's none) */
			char *where = section_quote(rules, "thread_local");
			if (!*where) {
				free(where);
				where = section_quote(rules, "__thread");
			}
			strlist_pushf(problems, "declares a thread_local variable, which submissions "
				      "to this lab may not use%s", where);
			free(where);
			thread_local_said = true;
		} else if (name && *name && !strcmp(name, "__nv_managed_data__")) {
			/* nvcc's for a __managed__ variable: memory both sides reach,
			 * past the ledger of what a launcher copies back */
			char *where = section_quote(rules, "__managed__");
			strlist_pushf(problems, "declares a __managed__ variable, which submissions "
				      "to this lab may not use%s\nhint: keep the data in device memory "
				      "(cudaMalloc, or a __device__ variable) and copy it with "
				      "cudaMemcpy", where);
			free(where);
		} else if (name && *name && !strlist_matches(rules->allow, name))
			strlist_pushf(problems, "has a section '%.80s' of its own (inline assembly, or an "
				      "attribute): the audit does not look into one, and submissions "
				      "may not make one", name);
		free(name);
		l = end ? end + 1 : NULL;
	}

	if (readelf_output && strstr(readelf_output, " .ctors"))
		strlist_push(problems, "has a constructor (.ctors): code that runs before main is "
			     "not allowed");
	/*
	 * With libstdc++ before gcc 13 every file that includes <iostream>
	 * has one: gcc's initialiser of the file, which only sets up cout and
	 * cerr. It is accepted when it does nothing else.
	 */
	if (extra && !(extra == 1 && disasm && iostream_initialiser_only(disasm, rules->emulated)))
		strlist_pushf(problems, "has %lu constructors (functions that run before main)%s: "
			      "remove __attribute__((constructor)) and global objects with "
			      "constructors", extra,
			      rules->own_constructors ? ", beyond the one nvcc generates" : "");
}
