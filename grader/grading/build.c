/*
 * build.c - building a submission (build.h): nvcc on each source file, and
 * g++ on its rewrite for the CPU emulator, with what the sequencer runs
 * beside them (the GPU probe, which build.c knows nothing of); the include
 * check and the source scan of what both preprocessed; the symbol audit of
 * both objects (nm, readelf); linking with a lab's harness or driver; and
 * the emulator's checking builds (AddressSanitizer, the trace).
 *
 * Owns: the compilers' command lines, turning what they said into the
 * result's build state, and what the later steps may build from: only what
 * was audited, unchanged (the submission's programs can write the work
 * folder), and every checking build of the emulator from the one text g++
 * preprocessed, so that no build of it can tell which one it is. What the
 * compilers may read is build-reads.c's. Must not: run the submission's
 * code, or read lab.conf other than through config.h.
 */
#include "build.h"
#include "build-reads.h"

#include "audit.h"
#include "includes.h"
#include "intake.h"
#include "rewrite.h"
#include "safety.h"
#include "scan.h"
#include "toolfault.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* The emulator's build of one source file, as build_compile() left it. */
struct emu_source {
	char *file;
	char *text;      /* what g++ preprocessed of its rewrite, as scanned; NULL: none */
	char *failure;   /* why g++ could not build it (its output); NULL: it built */
	size_t spec;     /* build_compile()'s run of g++ on it; 0: none */
	/* the host's own variables and the __device__ ones, as nvcc's object
	 * shows them (audit_host_data): the checking build puts them where its
	 * runtime knows them */
	struct strlist host_data, device_data;
};

struct build_kept {
	struct strlist audited;   /* "SHA256 PATH": each object as audited or built since */
	struct emu_source *emu;
	size_t nemu;
	/* the unoptimised objects (build_unoptimised_binary): made beside the
	 * others; else why not */
	bool unopt;
	char *unopt_missing;
};

void build_kept_free(struct build_kept *b)
{
	if (!b)
		return;
	strlist_clear(&b->audited);
	for (size_t i = 0; i < b->nemu; i++) {
		free(b->emu[i].file);
		free(b->emu[i].text);
		free(b->emu[i].failure);
		strlist_clear(&b->emu[i].host_data);
		strlist_clear(&b->emu[i].device_data);
	}
	free(b->emu);
	free(b->unopt_missing);
	free(b);
}

static struct emu_source *emu_source(const struct build_kept *b, const char *file)
{
	for (size_t i = 0; b && i < b->nemu; i++)
		if (!strcmp(b->emu[i].file, file))
			return &b->emu[i];
	return NULL;
}

/* path's sha256 into hex; false when it cannot be read. */
static bool hash_file(const char *path, char hex[65])
{
	size_t len;
	char *data = read_file(path, &len);

	if (!data)
		return false;
	sha256_hex(data, len, hex);
	free(data);
	return true;
}

/* Notes path as it is now: what build_unchanged() holds it to. */
static void remember(struct build_kept *b, const char *path)
{
	char hex[65];
	/* a file that cannot be read is noted as no file has it */
	char *entry = hash_file(path, hex) ? xasprintf("%s %s", hex, path)
					   : xasprintf("%064d %s", 0, path);

	for (size_t i = 0; i < b->audited.n; i++)
		if (!strcmp(b->audited.v[i] + 65, path)) {
			free(b->audited.v[i]);
			b->audited.v[i] = entry;
			return;
		}
	strlist_push(&b->audited, entry);
	free(entry);
}

/*
 * Whether path is as remember() saw it: true when it is, or the build
 * never noted it; false when it changed or went (the submission's programs
 * wrote it).
 */
static bool build_unchanged(const struct build_kept *b, const char *path)
{
	char hex[65];

	for (size_t i = 0; b && i < b->audited.n; i++)
		if (!strcmp(b->audited.v[i] + 65, path))
			return hash_file(path, hex) && !strncmp(hex, b->audited.v[i], 64);
	return true;
}

/* Whether path was noted by remember(). */
static bool remembered(const struct build_kept *b, const char *path)
{
	for (size_t i = 0; b && i < b->audited.n; i++)
		if (!strcmp(b->audited.v[i] + 65, path))
			return true;
	return false;
}

/* nvcc's complaint that -arch=native found no GPU says nothing to a student. */
static char *clean_build_log(const char *log)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *l = log; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (!memmem(l, n, "Cannot find valid GPU for '-arch=native'", 40))
			strbuf_add(&sb, l, n), strbuf_addstr(&sb, "\n");
		l += n + (l[n] == '\n');
	}
	return strbuf_detach(&sb);
}

/*
 * A tool's output is kept up to the lab's build_output_limit, from its
 * beginning: where more was cut, the log says so after what was kept, or
 * the report would end mid-line with no error in sight.
 */
static char *cut_note(const char *tool, const struct run_result *res, const char *kept,
		      size_t limit)
{
	size_t n = kept ? strlen(kept) : 0;

	if (!res->output_dropped)
		return xstrdup("");
	return xasprintf("%s[... %s printed %zu bytes more, not shown: the first %zu are kept "
			 "(build_output_limit in lab.conf); its first error is above, or in the "
			 "part cut]\n",
			 n && kept[n - 1] != '\n' ? "\n" : "", tool, res->output_dropped, limit);
}

bool build_is_source(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".cu");
}

void build_student_objects(const struct grading *g, struct strlist *objs)
{
	for (size_t i = 0; i < g->cfg->files.n; i++)
		if (build_is_source(g->cfg->files.v[i]))
			strlist_pushf(objs, "%s/%s.o", g->workdir, g->cfg->files.v[i]);
}

/* Runs a tool (nm, readelf) whose output the grader reads; NULL on failure. */
static char *tool_output(const char *const *argv)
{
	struct run_spec spec = {.argv = argv, .timeout = TOOL_TIMEOUT, .output_limit = 16 << 20};
	struct run_result res;
	char *out = NULL;

	if (run_one(&spec, &res))
		return NULL;
	if (res.started && !res.timed_out && !res.signal && res.exit_code == 0 &&
	    !res.output_dropped)
		out = xstrdup(res.output);
	else
		error("'%s %s %s' failed: %s", argv[0], argv[1], argv[2],
		      res.output ? res.output : "no output");
	run_result_release(&res);
	return out;
}

/*
 * Audits obj, an object made of the submission's file src (in the work
 * folder): nvcc's, or, when emulated, g++'s on the emulator's rewrite of it,
 * held to the emulator's lists too. What nvcc's object shows to be kernels of
 * C linkage and __device__ variables goes into nvcc_globals, which the
 * emulator's audit of the same file reads.
 */
static int audit(const struct grading *g, const char *obj, const char *src, bool emulated,
		 struct strlist *nvcc_globals, struct strlist *problems)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	char *path = xasprintf("%s/%s", g->workdir, src);
	struct strlist allow = STRLIST_INIT, deny = STRLIST_INIT, weak = STRLIST_INIT;
	strlist_concat(&allow, &cfg->allow_undefined, emulated ? &cfg->emulated_allow_undefined : NULL);
	strlist_concat(&deny, &cfg->deny_defined, emulated ? &cfg->emulated_deny_defined : NULL);
	strlist_concat(&weak, &cfg->allow_weak, emulated ? &cfg->emulated_allow_weak : NULL);
	struct audit_rules rules = {&cfg->symbols, &allow, &deny, &weak, read_file(path, NULL), src,
				    emulated ? nvcc_globals : NULL};
	struct section_rules sections = {&cfg->allow_sections, emulated ? 0 : 1, emulated,
					 rules.source, src};
	const char *nm_argv[] = {tc->nm, "-P", obj, NULL};
	const char *readelf_argv[] = {tc->readelf, "-S", "-W", obj, NULL};
	const char *objdump_argv[] = {tc->objdump, "-d", "-r", obj, NULL};
	char *symbols = tool_output(nm_argv);
	char *elf = symbols ? tool_output(readelf_argv) : NULL;
	/* only read when there is a constructor of the student's to judge */
	char *disasm = elf && audit_constructors(elf, sections.own_constructors)
			       ? tool_output(objdump_argv) : NULL;
	int ret = -1;

	if (elf) {
		audit_symbols(symbols, &rules, problems);
		audit_sections(elf, disasm, &sections, problems);
		if (!emulated)
			audit_nvcc_globals(symbols, nvcc_globals);
		/* the host's variables, for the emulator's checking build */
		struct emu_source *es = !emulated && tc->emu_trace_cxxflags
						? emu_source(g->build, src) : NULL;
		if (es && !disasm)
			disasm = tool_output(objdump_argv);
		if (es && disasm)
			audit_host_data(symbols, disasm, &es->host_data, &es->device_data);
		ret = 0;
	}
	free(disasm);
	free((char *)rules.source);
	free(path);
	free(symbols);
	free(elf);
	strlist_clear(&allow);
	strlist_clear(&deny);
	strlist_clear(&weak);
	return ret;
}

/* workdir/.pp-<file>: where nvcc keeps what it preprocessed of the source file */
static char *keep_dir(const char *workdir, const char *file)
{
	return xasprintf("%s/.pp-%s", workdir, file);
}

/*
 * The source scan's problems ("FILE:LINE: what"), each with its line of the
 * submission's file quoted under it, into out (unless there already).
 */
static void quote_lines(const struct grading *g, const struct strlist *in, struct strlist *out)
{
	for (size_t i = 0; i < in->n; i++) {
		const char *p = in->v[i], *colon = strchr(p, ':');
		char *msg = NULL;
		unsigned long no;
		int at = 0;
		for (size_t f = 0; colon && f < g->cfg->files.n && !msg; f++) {
			const char *name = g->cfg->files.v[f];
			if (strlen(name) != (size_t)(colon - p) || strncmp(p, name, strlen(name)) ||
			    sscanf(colon + 1, "%lu:%n", &no, &at) != 1 || !at)
				continue;
			char *path = xasprintf("%s/%s", g->workdir, name), *text = read_file(path, NULL);
			const char *l = text;
			for (unsigned long k = 1; l && k < no; k++)
				l = (l = strchr(l, '\n')) ? l + 1 : NULL;
			if (l && *l) {
				l += strspn(l, " \t");
				size_t len = strcspn(l, "\n");
				msg = xasprintf("%s\n  %s:%lu: %.*s", p, name, no, (int)(len > 160 ? 160 : len), l);
			}
			free(text);
			free(path);
		}
		if (!msg)
			msg = xstrdup(p);
		if (!strlist_has(out, msg))
			strlist_push(out, msg);
		free(msg);
	}
}

/*
 * The include check and (once nvcc built it: built) the source scan of one
 * file, from the two passes nvcc preprocessed it in and kept in dir:
 * <stem>.cpp4.ii for the host compiler, <stem>.cpp1.ii (one per GPU
 * architecture) for the device compiler. What the scan accepts as the
 * GPU's inline assembly goes into device_asm. Removes dir. -1 when a built
 * file lacks either pass: the scan never passes for want of its input.
 */
static int scan_file(const struct grading *g, const char *dir, bool built,
		     const struct include_policy *ip, const char *header_name,
		     struct strlist *device_asm, struct strlist *problems, struct strlist *reads)
{
	const struct lab_config *cfg = g->cfg;
	struct strlist sources = STRLIST_INIT;
	struct scan_rules rules = {&sources, &cfg->forbid_names, &cfg->forbid_calls,
				   (enum asm_policy)cfg->inline_asm, g->workdir, device_asm, false,
				   cfg->strict_barriers};
	DIR *d = opendir(dir);
	struct dirent *e;
	int host = 0, device = 0, ret = -1;

	for (size_t i = 0; i < cfg->files.n; i++)
		strlist_push(&sources, cfg->files.v[i]);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name), len;
		if (n < 3 || strcmp(e->d_name + n - 3, ".ii"))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name), *text = read_file(path, &len);
		bool host_pass = n > 8 && !strcmp(e->d_name + n - 8, ".cpp4.ii");
		free(path);
		if (!text)
			continue;
		judge_includes(text, len, &rules, ip, header_name, reads);
		if (built) {
			struct strlist found = STRLIST_INIT;
			scan_preprocessed(text, len, host_pass, &rules, &found);
			quote_lines(g, &found, problems);
			strlist_clear(&found);
		}
		host += host_pass;
		device += !host_pass;
		free(text);
	}
	if (d)
		closedir(d);
	if (!built || (host && device))
		ret = 0;
	else
		error("nvcc kept no preprocessed source in '%s' to scan", dir);
	remove_tree(dir);
	strlist_clear(&sources);
	return ret;
}

/*
 * The same of the emulator's build of file f: what g++ preprocessed of its
 * rewrite (workdir/f.emu.ii), where every line runs on the CPU, so only
 * inline assembly spelled as one device_asm holds is the GPU's. The text is
 * kept in es, the checking builds' one source. Nothing preprocessed (g++
 * failed before): nothing to judge, and nothing of it will run.
 */
static void scan_emulated(const struct grading *g, struct emu_source *es,
			  const struct include_policy *ip, const char *header_name,
			  struct strlist *device_asm, struct strlist *problems,
			  struct strlist *reads)
{
	const struct lab_config *cfg = g->cfg;
	struct scan_rules rules = {&cfg->files, &cfg->forbid_names, &cfg->forbid_calls,
				   (enum asm_policy)cfg->inline_asm, g->workdir, device_asm, true, false};
	char *path = xasprintf("%s/%s.emu.ii", g->workdir, es->file);
	size_t len;

	if (!access(path, F_OK) && (es->text = read_file(path, &len))) {
		struct strlist found = STRLIST_INIT;
		judge_includes(es->text, len, &rules, ip, header_name, reads);
		scan_preprocessed(es->text, len, true, &rules, &found);
		quote_lines(g, &found, problems);
		strlist_clear(&found);
	}
	free(path);
}

/* g++ on the emulator's rewrite of source file f: preprocessed into workdir/f.emu.ii, kept, and compiled to workdir/f.emu.o. */
static void emulated_argv(const struct grading *g, const char *f, struct strlist *argv)
{
	const char *workdir = g->workdir;

	strlist_push(argv, g->tc->cxx);
	grading_push_emu_flags(g, g->tc->emu_cxxflags, argv);
	strlist_pushf(argv, "-I%s", workdir);
	strlist_pushf(argv, "-I%s/%s", workdir, GRADING_INCLUDE);
	strlist_push(argv, "-save-temps=obj");
	strlist_push(argv, "-c");
	strlist_pushf(argv, "%s/%s.emu.cpp", workdir, f);
	strlist_push(argv, "-o");
	strlist_pushf(argv, "%s/%s.emu.o", workdir, f);
}

static char *join_lines(const struct strlist *l)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "\n" : "", l->v[i]);
	return strbuf_detach(&sb);
}

int build_link(const struct grading *g, const struct strlist *objs, const char *rsp,
	       const char *name, char **binary, char **log)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	struct strlist argv = STRLIST_INIT;
	struct run_result lr;
	int ret = -1;

	*binary = xasprintf("%s/%s", g->workdir, name);
	for (size_t i = 0; i < objs->n; i++)
		if (!build_unchanged(g->build, objs->v[i])) {
			const char *o = strrchr(objs->v[i], '/');
			*log = xasprintf("'%s' changed after the build audited it: a program of the "
					 "submission's wrote it, and only what was audited is linked",
					 o ? o + 1 : objs->v[i]);
			return 1;
		}
	strlist_push(&argv, tc->cxx);
	strlist_push(&argv, "-o");
	strlist_push(&argv, *binary);
	for (size_t i = 0; i < objs->n; i++)
		strlist_push(&argv, objs->v[i]);
	strlist_pushf(&argv, "@%s/labs/%s/%s", tc->build, cfg->name, rsp);
	struct run_spec ls = {.argv = (const char *const *)argv.v, .timeout = cfg->build_timeout,
			      .output_limit = cfg->build_output_limit};
	if (run_one(&ls, &lr))
		goto out;
	ret = 0;
	char *fault = lr.started && (lr.signal || lr.exit_code) ? toolfault_why(&ls, &lr, g->workdir)
								   : NULL;
	if (fault) {
		ret = error("linking '%s' failed for the machine, not the submission: %s", name,
			    fault);
		free(fault);
	} else if (!lr.started || lr.timed_out || lr.signal || lr.exit_code) {
		char *why = run_describe(&ls, &lr), *cut = cut_note("the linker", &lr, lr.output,
								     cfg->build_output_limit);
		char *said = visible_text(lr.output ? lr.output : "", lr.output_len, false);
		*log = xasprintf("%s\n%s%s", why, said, cut);
		free(said);
		free(why);
		free(cut);
		ret = 1;
	}
	run_result_release(&lr);
out:
	strlist_clear(&argv);
	return ret;
}

/*
 * The checking build's object obj of es, its variables' sections renamed
 * (objcopy, in place): the host's to cudaemu_host_data and
 * cudaemu_host_bss, the __device__, __constant__ and __managed__ ones to
 * cudaemu_dev_data and cudaemu_dev_bss, the linker's __start_ and __stop_
 * symbols of which tell the emulator's runtime where each are (memory.cc),
 * as no address of theirs tells the one from the other. 0, or -1 with an
 * error: the grader's tool failed, not the submission.
 */
static int mark_variables(const struct grading *g, const struct emu_source *es, const char *obj)
{
	static const char *const data[] = {".data.", ".data.rel.", ".data.rel.local."};
	struct strlist argv = STRLIST_INIT;
	struct run_result res;
	int ret = -1;

	strlist_push(&argv, g->tc->objcopy);
	for (int dev = 0; dev < 2; dev++) {
		const struct strlist *l = dev ? &es->device_data : &es->host_data;
		const char *to = dev ? "cudaemu_dev" : "cudaemu_host";
		for (size_t i = 0; i < l->n; i++) {
			strlist_push(&argv, "--rename-section");
			strlist_pushf(&argv, ".bss.%s=%s_bss", l->v[i], to);
			for (size_t d = 0; d < sizeof(data) / sizeof(data[0]); d++) {
				strlist_push(&argv, "--rename-section");
				strlist_pushf(&argv, "%s%s=%s_data", data[d], l->v[i], to);
			}
		}
	}
	strlist_push(&argv, obj);
	struct run_spec spec = {.argv = (const char *const *)argv.v, .timeout = g->cfg->build_timeout,
				.output_limit = g->cfg->build_output_limit};
	if (!run_one(&spec, &res)) {
		if (res.started && !res.timed_out && !res.signal && !res.exit_code)
			ret = 0;
		else
			error("objcopy on '%s' failed: %.300s", obj, res.output ? res.output : "");
		run_result_release(&res);
	}
	strlist_clear(&argv);
	return ret;
}

int build_emulated_objects(const struct grading *g, const char *flags, const char *suffix,
			   struct strlist *objs, char **log)
{
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	bool plain = !strcmp(suffix, "emu");

	for (size_t i = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!build_is_source(f))
			continue;
		const struct emu_source *es = emu_source(g->build, f);
		strlist_pushf(objs, "%s/%s.%s.o", workdir, f, suffix);
		const char *obj = objs->v[objs->n - 1];
		if (!es || es->failure || !es->text) {
			/* what build_compile() could not build, in its compiler's words */
			*log = xasprintf("'%s':\n%s", f, es && es->failure ? es->failure :
					 "the emulator's build of it was not made\n");
			return 1;
		}
		/* the plain build, which build_compile() made and audited; a
		 * checking build made already (the safety stage and the profile
		 * both use the trace build), unchanged */
		if (plain || (remembered(g->build, obj) && build_unchanged(g->build, obj)))
			continue;
		/* compiled from the text that was scanned, written afresh: a file the
		 * submission's programs could have changed since is never read */
		char *ii = xasprintf("%s/%s.emu.%s.ii", workdir, f, suffix);
		if (write_file_atomic(ii, es->text, strlen(es->text))) {
			free(ii);
			return -1;
		}
		struct strlist argv = STRLIST_INIT;
		strlist_push(&argv, g->tc->cxx);
		/* preprocessed already: the flags' -I and -include have nothing left to do */
		grading_push_emu_flags(g, flags, &argv);
		bool mark = !strcmp(suffix, "trace") && (es->host_data.n || es->device_data.n);
		if (mark)
			strlist_push(&argv, "-fdata-sections");   /* a section each, to rename */
		strlist_push(&argv, "-c");
		strlist_push(&argv, ii);
		strlist_push(&argv, "-o");
		strlist_push(&argv, obj);
		struct run_spec spec = {.argv = (const char *const *)argv.v, .cwd = workdir,
					.envp = (const char *const *)g->env,
					.timeout = cfg->build_timeout, .output_limit = cfg->build_output_limit,
					.max_memory = cfg->memory_limit, .sandbox = &g->build_sandbox};
		struct run_result res;
		int rr = run_one(&spec, &res);
		char *fault = !rr && res.started && (res.signal || res.exit_code)
				      ? toolfault_why(&spec, &res, workdir) : NULL;
		if (fault) {
			rr = error("g++ on '%s' failed for the machine, not the submission: %s", f,
				   fault);
			free(fault);
		} else if (!rr && (!res.started || res.timed_out || res.signal || res.exit_code)) {
			char *cut = cut_note("g++", &res, res.output, cfg->build_output_limit);
			char *said = visible_text(res.output ? res.output : "", res.output_len, false);
			*log = xasprintf("'%s':\n%s%s", f, said, cut);
			free(said);
			free(cut);
			rr = 1;
		}
		if (!rr && mark)
			rr = mark_variables(g, es, obj);
		if (!rr)
			remember(g->build, obj);
		run_result_release(&res);
		strlist_clear(&argv);
		free(ii);
		if (rr)
			return rr;
	}
	return 0;
}

/*
 * The CPU build of a submission nvcc already compiled: each .cu rewritten
 * (rewrite.c) and compiled with g++ on the emulator (build_compile() did
 * both, and audited it), linked with the emulated harness. What the
 * emulator cannot build is no fault of the student's: the run then has no
 * tests (mode none) and says why.
 */
static int emulated_build(struct grading *g, char **binary)
{
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT;
	char *problem = NULL, *log = NULL, *asm_at = NULL;
	int ret = -1, rc;

	for (size_t i = 0; i < cfg->files.n && !problem; i++) {
		const char *f = cfg->files.v[i];
		if (!build_is_source(f))
			continue;
		/* the rewrite again, for what it says: why it failed, where asm is */
		char *src_path = xasprintf("%s/%s", workdir, f), *src = read_file(src_path, NULL);
		char *out, *at;
		free(src_path);
		out = src ? rewrite_cuda(src, f, &problem) : NULL;
		if (src && !asm_at && (at = rewrite_find_asm(src))) {
			asm_at = xasprintf("%s:%s", f, at);
			free(at);
		}
		free(src);
		rc = out || problem ? 0 : -1;
		free(out);
		if (rc)
			goto out;
	}
	if (!problem) {
		rc = build_emulated_objects(g, g->tc->emu_cxxflags, "emu", &objs, &log);
		if (rc < 0)
			goto out;
		if (rc && asm_at)
			problem = xasprintf("the CPU emulator cannot run inline PTX, which only a GPU "
					    "runs (%s); g++ on %s", asm_at, log);
		else if (rc)
			problem = xasprintf("the CPU emulator cannot build %s", log);
	}
	if (!problem) {
		rc = build_link(g, &objs, "link-emu.rsp", "runner_emu", binary, &log);
		if (rc < 0)
			goto out;
		if (rc)
			problem = xasprintf("the CPU emulator cannot link the submission: %s", log);
	}
	if (problem) {
		r->mode = MODE_NONE;
		r->state_reason = problem;
	}
	ret = 0;
out:
	free(asm_at);
	free(log);
	strlist_clear(&objs);
	return ret;
}

/*
 * The emulator's build of each source file, to run beside nvcc: its
 * rewrite written to workdir/<file>.emu.cpp, and g++'s command on it into
 * argvs[*n ...] and specs[*n ...]. g->build gets an entry for each file
 * (with the rewrite's complaint as its failure where it has one).
 */
static int emulated_specs(struct grading *g, struct strlist *argvs, struct run_spec *specs,
			  size_t *n)
{
	const struct lab_config *cfg = g->cfg;
	struct build_kept *b = g->build;

	b->emu = xcalloc(cfg->files.n, sizeof(*b->emu));
	for (size_t i = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!build_is_source(f))
			continue;
		struct emu_source *es = &b->emu[b->nemu++];
		char *path = xasprintf("%s/%s", g->workdir, f), *src = read_file(path, NULL);
		char *problem = NULL, *out = src ? rewrite_cuda(src, f, &problem) : NULL;
		int rc = 0;
		es->file = xstrdup(f);
		free(path);
		free(src);
		if (out) {
			path = xasprintf("%s/%s.emu.cpp", g->workdir, f);
			rc = write_file_atomic(path, out, strlen(out));
			free(path);
			emulated_argv(g, f, &argvs[*n]);
			es->spec = *n;
			specs[(*n)++] = (struct run_spec){.envp = (const char *const *)g->env,
							  .cwd = g->workdir,
							  .timeout = g->cfg->build_timeout,
							  .output_limit = g->cfg->build_output_limit,
							  .max_memory = g->cfg->memory_limit,
							  .sandbox = &g->build_sandbox};
		} else {
			es->failure = problem ? problem : xstrdup("the rewrite failed\n");
			rc = problem ? 0 : -1;
		}
		free(out);
		if (rc)
			return -1;
	}
	return 0;
}

/* nvcc and its flags for the lab's obj-th source file, without what to compile. */
static void nvcc_argv(const struct grading *g, size_t obj, struct strlist *argv)
{
	strlist_push(argv, g->tc->nvcc);
	strlist_split(argv, g->tc->nvcc_flags);
	strlist_push(argv, "-arch=native");
	strlist_pushf(argv, "-I%s/%s", g->workdir, GRADING_INCLUDE);
	/* a lab that teaches barriers: each __syncthreads() checked, as
	 * strict emulation checks it (checked-barrier.h) */
	if (g->cfg->strict_barriers) {
		strlist_push(argv, "-include");
		strlist_pushf(argv, "%s/%s", g->workdir, GRADING_CHECKED_BARRIER);
		strlist_pushf(argv, "-DCL_CHECKED_UNIT=%zu", obj);
	}
}

/*
 * Whether this grading may run on a GPU whose safety stage runs (the lab
 * has safety tests and needs a GPU): then the unoptimised objects are
 * built beside the others (the GPU is not known until the build is; a
 * machine without the driver's device node or without compute-sanitizer
 * builds none).
 */
static bool unopt_wanted(const struct grading *g)
{
	const char *off = getenv("CUDALAB_SAFETY");
	bool any = false;
	for (size_t p = 0; p < g->cfg->nparts; p++)
		any |= g->cfg->parts[p].safety.n > 0;
	if (!any || !g->cfg->needs_gpu || g->o->emulate == 1 || (off && !strcmp(off, "0")) ||
	    access("/dev/nvidiactl", F_OK))
		return false;
	char *san = safety_find_sanitizer(g->tc->nvcc);
	bool found = san != NULL;
	free(san);
	return found;
}

/*
 * nvcc's commands for the unoptimised objects, workdir/<file>.unopt.o,
 * into argvs[*n ...] and specs[*n ...]: the same source and flags with
 * the device code's optimisation off (-Xcicc -O0 -Xptxas -O0: no macro
 * tells the source so, as -G's __CUDACC_DEBUG__ would), and at most 64
 * registers a thread, so that a block of 1024 threads still launches.
 */
static void unopt_specs(struct grading *g, struct strlist *argvs, struct run_spec *specs,
			size_t *n)
{
	const struct lab_config *cfg = g->cfg;

	for (size_t i = 0, obj = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!build_is_source(f))
			continue;
		struct strlist *a = &argvs[*n];
		nvcc_argv(g, obj++, a);
		strlist_push(a, "-Xcicc");
		strlist_push(a, "-O0");
		strlist_push(a, "-Xptxas");
		strlist_push(a, "-O0");
		strlist_push(a, "-maxrregcount=64");
		strlist_push(a, "-c");
		strlist_push(a, f);
		strlist_push(a, "-o");
		strlist_pushf(a, "%s/%s.unopt.o", g->workdir, f);
		specs[(*n)++] = (struct run_spec){.envp = (const char *const *)g->env,
						  .cwd = g->workdir,
						  .timeout = cfg->build_timeout,
						  .output_limit = cfg->build_output_limit,
						  .max_memory = cfg->memory_limit,
						  .sandbox = &g->build_sandbox};
	}
}

/* The include check's refusal; the compiler's output, which may quote what it read, is not kept. */
static void refuse_reads(struct result *r, const struct strlist *reads)
{
	char *lines = join_lines(reads);

	r->build = BUILD_AUDIT_FAILED;
	free(r->build_message);
	r->build_message = xasprintf("the submission was refused by the check of what the compilers "
				     "read:\n%s", lines);
	free(r->build_log);
	r->build_log = xstrdup("(the compilers' output is not shown: they read files a submission "
			       "may not include)\n");
	free(lines);
}

int build_compile(struct grading *g, const struct run_spec *beside, struct run_result *beside_res)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT, problems = STRLIST_INIT, emu_problems = STRLIST_INIT;
	struct strlist reads = STRLIST_INIT, device_asm = STRLIST_INIT, device_vars = STRLIST_INIT;
	size_t most = 3 * cfg->files.n + 3;
	/* the compilers' search lists not yet known: asked beside the builds */
	char *query_key[2] = {NULL, NULL};
	size_t query[2] = {0, 0};
	struct strlist *argvs = xcalloc(most, sizeof(*argvs));
	struct run_spec *specs = xcalloc(most, sizeof(*specs));
	struct run_result *res = xcalloc(most, sizeof(*res));
	struct include_policy nvcc_reads = {0}, emu_reads = {0};
	struct strbuf log = STRBUF_INIT;
	bool emu = tc->emu_cxxflags != NULL, unopt = unopt_wanted(g);
	size_t n = 0, nvcc_end, unopt_start = 0, unopt_end = 0;
	int ret = -1;

	build_kept_free(g->build);
	g->build = xcalloc(1, sizeof(*g->build));
	specs[n++] = *beside;   /* slot 0: what runs beside the build */
	build_student_objects(g, &objs);
	for (size_t i = 0, obj = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!build_is_source(f))
			continue;
		nvcc_argv(g, obj, &argvs[n]);
		/* its preprocessed passes, for the source scan */
		char *keep = keep_dir(workdir, f);
		if (mkdir(keep, 0700) && errno != EEXIST) {
			error("cannot make '%s': %s", keep, strerror(errno));
			free(keep);
			goto out;
		}
		if (sandbox_own(&g->build_sandbox, keep)) {
			free(keep);
			goto out;
		}
		strlist_push(&argvs[n], "--keep");
		strlist_push(&argvs[n], "--keep-dir");
		strlist_push(&argvs[n], keep);
		free(keep);
		strlist_push(&argvs[n], "-c");
		strlist_push(&argvs[n], f);
		strlist_push(&argvs[n], "-o");
		strlist_push(&argvs[n], objs.v[obj++]);
		specs[n] = (struct run_spec){.envp = (const char *const *)g->env, .cwd = workdir,
					     .timeout = cfg->build_timeout,
					     .output_limit = cfg->build_output_limit,
					     .max_memory = cfg->memory_limit,
					     .sandbox = &g->build_sandbox};
		n++;
	}
	nvcc_end = n;
	/* the emulator's build beside it, whatever the grading's mode: code that only
	 * one of the two compiles is judged all the same */
	if (emu && emulated_specs(g, argvs, specs, &n))
		goto out;
	/* the safety stage's memcheck build beside them, where a GPU may run it */
	unopt_start = n;
	if (unopt)
		unopt_specs(g, argvs, specs, &n);
	unopt_end = n;
	for (int e = 0; e <= (int)emu; e++) {
		if (compiler_search_cached(g, e, &query_key[e]))
			continue;
		compiler_search_command(g, e, &argvs[n]);
		specs[n] = compiler_search_spec(g, &argvs[n]);
		query[e] = n++;
	}
	for (size_t i = 1; i < n; i++)
		specs[i].argv = (const char *const *)argvs[i].v;

	progress("building %s ...", cfg->files.v[0]);
	if (run_many(specs, res, n))
		goto out;
	*beside_res = res[0];   /* the caller's now */
	res[0] = (struct run_result){0};
	for (int e = 0; e < 2; e++)
		if (query[e] && compiler_search_answer(query_key[e], &specs[query[e]],
							&res[query[e]], g->workdir))
			goto out;

	r->build = BUILD_OK;
	for (size_t i = 1; i < nvcc_end; i++) {
		char *clean = clean_build_log(res[i].output);
		char *cut = cut_note("nvcc", &res[i], clean, cfg->build_output_limit);
		strbuf_addstr(&log, clean);
		strbuf_addstr(&log, cut);
		free(clean);
		free(cut);
		if (!res[i].started) {
			error("cannot run nvcc '%s': %s", tc->nvcc, res[i].output);
			goto out;
		}
		char *fault = res[i].signal || res[i].exit_code
				      ? toolfault_why(&specs[i], &res[i], workdir) : NULL;
		if (fault) {
			/* no compile error of the student's: the grader's failure, tried again */
			error("nvcc on '%s' failed for the machine, not the submission: %s",
			      argvs[i].v[argvs[i].n - 3], fault);
			free(fault);
			goto out;
		}
		if (r->build == BUILD_OK &&
		    (res[i].timed_out || res[i].signal || res[i].exit_code)) {
			char *why = run_describe(&specs[i], &res[i]);
			r->build = BUILD_COMPILE_ERROR;
			r->build_message = xasprintf("nvcc failed on '%s' (%s)", argvs[i].v[argvs[i].n - 3],
						     why);
			free(why);
		}
	}
	/* what g++ could not build, the emulator cannot run: kept for it to say */
	for (size_t e = 0; e < g->build->nemu; e++) {
		struct emu_source *es = &g->build->emu[e];
		size_t i = es->spec;
		if (!i || (res[i].started && !res[i].timed_out && !res[i].signal && !res[i].exit_code))
			continue;
		char *why = run_describe(&specs[i], &res[i]);
		char *cut = cut_note("g++", &res[i], res[i].output, cfg->build_output_limit);
		/* what g++ said quotes the submission: shown, never obeyed, by a terminal */
		char *said = visible_text(res[i].output ? res[i].output : "", res[i].output_len, false);
		es->failure = res[i].exit_code && !res[i].timed_out && !res[i].signal
			? xasprintf("%s%s", said, cut)
			: xasprintf("g++ %s\n%s%s", why, said, cut);
		free(said);
		free(why);
		free(cut);
	}
	/* what nvcc said quotes the submission: shown, never obeyed, by a terminal */
	r->build_log = visible_text(log.buf ? log.buf : "", log.len, false);
	/* the unoptimised build only serves the safety stage: its failure (where
	 * the optimised one built) is said there, never charged to the build */
	g->build->unopt = unopt;
	for (size_t i = unopt_start; i < unopt_end && g->build->unopt; i++)
		if (!res[i].started || res[i].timed_out || res[i].signal || res[i].exit_code) {
			char *why = run_describe(&specs[i], &res[i]);
			char *said = visible_text(res[i].output ? res[i].output : "",
						  res[i].output_len, false);
			g->build->unopt = false;
			g->build->unopt_missing = xasprintf("nvcc without device optimisation %s:\n"
							    "%.300s", why, said);
			free(said);
			free(why);
		}
	if (!unopt)
		g->build->unopt_missing = xstrdup("it was not built (no GPU device node or no "
						  "compute-sanitizer when the build ran)");

	/* what the compilers read, whether or not they built it; then the scan of
	 * what they preprocessed, where they did */
	if (include_policy_init(g, false, &nvcc_reads) ||
	    (emu && include_policy_init(g, true, &emu_reads)))
		goto out;
	char *header = xasprintf("%s.h", cfg->name);
	for (size_t i = 0; i < cfg->files.n; i++) {
		if (!build_is_source(cfg->files.v[i]))
			continue;
		char *keep = keep_dir(workdir, cfg->files.v[i]);
		int rc = scan_file(g, keep, r->build == BUILD_OK, &nvcc_reads, header, &device_asm,
				   &problems, &reads);
		free(keep);
		if (rc) {
			free(header);
			goto out;
		}
	}
	for (size_t e = 0; emu && e < g->build->nemu; e++)
		scan_emulated(g, &g->build->emu[e], &emu_reads, header, &device_asm, &emu_problems,
			      &reads);
	free(header);
	if (reads.n) {
		refuse_reads(r, &reads);
		ret = 0;
		goto out;
	}
	if (r->build != BUILD_OK) {
		ret = 0;
		goto out;
	}

	for (size_t i = 0, obj = 0; i < cfg->files.n; i++)
		if (build_is_source(cfg->files.v[i]) &&
		    audit(g, objs.v[obj++], cfg->files.v[i], false, &device_vars, &problems))
			goto out;
	for (size_t e = 0; emu && e < g->build->nemu; e++) {
		const struct emu_source *es = &g->build->emu[e];
		char *obj = xasprintf("%s/%s.emu.o", workdir, es->file);
		int rc = !es->failure ? audit(g, obj, es->file, true, &device_vars, &emu_problems) : 0;
		free(obj);
		if (rc)
			goto out;
	}
	/* what the emulator's build alone has, said as its own */
	for (size_t i = 0; i < emu_problems.n; i++)
		if (strlist_has(&problems, emu_problems.v[i]))
			strlist_remove(&emu_problems, emu_problems.v[i--]);
	if (problems.n || emu_problems.n) {
		char *lines = join_lines(&problems), *emu_lines = join_lines(&emu_problems);
		r->build = BUILD_AUDIT_FAILED;
		r->build_message = xasprintf(
			"the submission was refused by the audit of its source and symbols:%s%s%s%s",
			problems.n ? "\n" : "", lines,
			emu_problems.n ? "\nin the CPU emulator's build of it (code that nvcc's "
					 "passes did not compile, as under #ifdef CUDAEMU, has "
					 "to pass the same audit):\n" : "",
			emu_lines);
		free(lines);
		free(emu_lines);
		ret = 0;
		goto out;
	}
	/* what later steps link is held to what was audited */
	for (size_t i = 0; i < objs.n; i++)
		remember(g->build, objs.v[i]);
	for (size_t e = 0; emu && e < g->build->nemu; e++)
		if (!g->build->emu[e].failure) {
			char *obj = xasprintf("%s/%s.emu.o", workdir, g->build->emu[e].file);
			remember(g->build, obj);
			free(obj);
		}
	/* the same source as the audited objects, built before any program of
	 * the submission's ran: held to what it was now */
	for (size_t i = unopt_start; i < unopt_end && g->build->unopt; i++)
		remember(g->build, argvs[i].v[argvs[i].n - 1]);

	ret = 0;
out:
	for (size_t i = 0; i < n; i++) {
		run_result_release(&res[i]);
		strlist_clear(&argvs[i]);
	}
	free(argvs);
	free(specs);
	free(res);
	include_policy_release(&nvcc_reads);
	include_policy_release(&emu_reads);
	free(query_key[0]);
	free(query_key[1]);
	strlist_clear(&objs);
	strlist_clear(&problems);
	strlist_clear(&emu_problems);
	strlist_clear(&reads);
	strlist_clear(&device_asm);
	strlist_clear(&device_vars);
	strbuf_release(&log);
	return ret;
}

int build_unoptimised_binary(const struct grading *g, char **binary, char **log)
{
	struct strlist objs = STRLIST_INIT;

	if (!g->build || !g->build->unopt) {
		*log = xstrdup(g->build && g->build->unopt_missing ? g->build->unopt_missing
								   : "it was not built");
		return 1;
	}
	for (size_t i = 0; i < g->cfg->files.n; i++)
		if (build_is_source(g->cfg->files.v[i]))
			strlist_pushf(&objs, "%s/%s.unopt.o", g->workdir, g->cfg->files.v[i]);
	int rc = build_link(g, &objs, "link.rsp", "runner_gpu_unopt", binary, log);
	strlist_clear(&objs);
	return rc;
}

int build_test_binary(struct grading *g, char **binary)
{
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT;
	int ret = -1;

	build_student_objects(g, &objs);
	if (r->mode == MODE_GPU || r->mode == MODE_CPU) {
		char *link_log = NULL;
		int rc = build_link(g, &objs, "link.rsp", "runner_gpu", binary, &link_log);
		if (rc < 0)
			goto out;
		if (rc) {
			r->build = BUILD_LINK_ERROR;
			r->build_message = xstrdup("linking with the test harness failed");
			free(r->build_log);
			r->build_log = link_log;
		}
	}
	if (r->mode == MODE_EMULATED && emulated_build(g, binary))
		goto out;
	ret = 0;
out:
	strlist_clear(&objs);
	return ret;
}
