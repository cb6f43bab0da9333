# bloomfilter: Bloom, counting Bloom, cuckoo and stable Bloom filters for PostgreSQL
EXTENSION = bloomfilter
# the version is the control file's default_version, nowhere else
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = bloomfilter

# Every .c file in src/ is part of the module; every src/sql/*.sql piece,
# in name order, makes up the current version's install script: what each
# element type (text, bytea, bigint, uuid) has is written once in a piece,
# as a template that tools/sqlgen.awk expands for each.  The install
# scripts of released versions and every update script are frozen in
# src/sql/versions/ (see doc/versions.md).
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))
SQL_PIECES = $(sort $(wildcard src/sql/*.sql))
SQLGEN = tools/sqlgen.awk
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(sort $(wildcard src/sql/versions/$(EXTENSION)--*.sql))

# pg_regress: every sql/*.sql, in name order
REGRESS = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)

# WERROR=-Werror makes every warning an error: make test builds so (on the
# PostgreSQL it was written against); a plain build for another
# PostgreSQL or compiler, whose headers may warn, only warns
WERROR ?=
PG_CFLAGS = -std=gnu11 -DPGBF_VERSION='"$(EXTVERSION)"' -Wall -Wextra $(WERROR) -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -Isrc
SHLIB_LINK = -lm
EXTRA_CLEAN = $(EXTENSION)--*.sql tmp_check results regression.diffs regression.out

# no LLVM bitcode: the build needs only gcc.  "override", because
# Makefile.global (included below) sets with_llvm from the server's own
# build, which beat a plain assignment: clang built and installed bitcode
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(DATA_built): $(SQL_PIECES) $(SQLGEN) $(EXTENSION).control
	awk -v extversion='$(EXTVERSION)' -f $(SQLGEN) $(SQL_PIECES) > $@ || { rm -f $@; exit 1; }

# Builds before with_llvm was overridden installed LLVM bitcode, which a
# server with jit = on inlines in place of the installed module's code:
# an install removes what an older one left
install: remove-stale-bitcode
.PHONY: remove-stale-bitcode
remove-stale-bitcode:
	rm -rf '$(DESTDIR)$(pkglibdir)/bitcode/$(MODULE_big)' '$(DESTDIR)$(pkglibdir)/bitcode/$(MODULE_big).index.bc'

# PGXS tracks no header dependencies (autodepend is off in Debian's build):
# rebuild every object when any header changes, so a stale object never
# links against a changed struct or a removed symbol
$(OBJS): $(wildcard src/*.h)

# ---- the two commands of the README ----
.PHONY: test demo
test:
	bash tools/run-tests.sh

demo:
	bash tools/run-demo.sh

# the regression suite against a server running under valgrind (slow)
.PHONY: valgrind
valgrind:
	bash tools/valgrind.sh

# the benchmarks of bench/README.md (BENCH_SCALE, BENCH_RUNS)
.PHONY: bench
bench:
	bash bench/run.sh
