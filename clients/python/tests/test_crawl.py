"""End to end: crawl installed HTML docs served on 127.0.0.1 with Scrapy's
own RFPDupeFilter and with PostgresDupeFilter; two-tier (and exact) must
fetch exactly the pages Scrapy's filter fetches.

Needs BLOOMFILTER_TEST_DSN; CRAWL_DOCROOT (default Debian's python3-doc,
/usr/share/doc/python3/html); CRAWL_ALLOW, a regex of the links to follow
(default: the Python docs but the library reference and the indexes, about
160 pages, so the test takes well under a minute; CRAWL_ALLOW=all for the
whole tree).  Prints the figures; CRAWL_FIGURES=FILE writes them as JSON.
"""

import json
import os
import socket
import subprocess
import sys
import time
import unittest
import urllib.request
from urllib.parse import urldefrag

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
DSN = os.environ.get("BLOOMFILTER_TEST_DSN")
DOCROOT = os.environ.get("CRAWL_DOCROOT", "/usr/share/doc/python3/html")
DEFAULT_ALLOW = (r"/(index\.html|tutorial/|howto/|faq/|using/|installing/|extending/"
                 r"|distributing/|c-api/|reference/|whatsnew/)")
ALLOW = os.environ.get("CRAWL_ALLOW", DEFAULT_ALLOW)
if ALLOW == "all":
    ALLOW = ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipUnless(DSN, "BLOOMFILTER_TEST_DSN is not set")
@unittest.skipUnless(os.path.isfile(os.path.join(DOCROOT, "index.html")),
                     "no %s/index.html (apt-get install python3-doc)" % DOCROOT)
class CrawlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(cls.port), "--bind", "127.0.0.1",
             "--directory", DOCROOT],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cls.start = "http://127.0.0.1:%d/index.html" % cls.port
        for _ in range(100):
            try:
                urllib.request.urlopen(cls.start, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        cls.tmp = os.environ.get("TMPDIR", "/tmp")

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait()

    def drop(self, table):
        with psycopg2.connect(DSN) as conn, conn.cursor() as cur:
            for t in (table, table + "_filter", table + "_log", table + "_hashes"):
                cur.execute("DROP TABLE IF EXISTS %s" % t)
        conn.close()

    def crawl(self, filt, mode="two-tier", again=False):
        """A crawl; again: with the tables the last crawl of mode left"""
        table = "crawl_test_" + mode.replace("-", "_")
        if not again:
            self.drop(table)
        out = os.path.join(self.tmp, "crawl-%d-%s-%s.txt" % (os.getpid(), filt, mode))
        env = dict(os.environ, BLOOMFILTER_DSN=DSN)
        cmd = [sys.executable, os.path.join(HERE, "crawlsite.py"), self.start, filt, mode,
               "--out", out, "--table", table]
        if ALLOW:
            cmd += ["--allow", ALLOW]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr[-3000:])
        summary = json.loads(res.stdout.strip().splitlines()[-1])
        with open(out) as f:
            # the page a URL fetches: Scrapy's filter and url_normalize both
            # ignore the fragment, so which spelling came first is timing
            pages = {urldefrag(u.strip())[0] for u in f if u.strip()}
        os.unlink(out)
        if filt == "postgres" and mode not in ("replica", "hashes") or again:
            self.drop(table)
        return summary, pages

    def test_same_pages_as_scrapy(self):
        runs = []
        base, base_pages = self.crawl("scrapy")
        runs.append(base)
        self.assertGreater(len(base_pages), 50)
        # CRAWL_MODES: the modes and their order (the elapsed times follow
        # the machine's load: reverse the order to see how much)
        for mode in os.environ.get("CRAWL_MODES", "two-tier exact index replica hashes").split():
            summary, pages = self.crawl("postgres", mode)
            summary["missing"] = len(base_pages - pages)
            summary["extra"] = len(pages - base_pages)
            runs.append(summary)
            if mode in ("index", "replica", "hashes"):
                # the filter alone may drop a new URL (a false positive)
                self.assertLessEqual(pages, base_pages)
            else:
                self.assertEqual(pages, base_pages, mode)
            # batched: far fewer round trips than requests asked about
            self.assertLess(summary["round_trips"], summary["pages"] + 10)
            self.assertEqual(summary["requests_scheduled"], base["requests_scheduled"])
            if mode in ("replica", "hashes"):
                # crawled again: the replica, synced once, knows every
                # link; only the start URL (dont_filter) is fetched
                again, again_pages = self.crawl("postgres", mode, again=True)
                again["filter"] = mode + ", again"
                runs.append(again)
                self.assertEqual(again_pages, {self.start})
                self.assertGreater(again["answered_by_replica"], 0)
                self.assertLessEqual(again["round_trips"], again["syncs"] + 1)
        lines = ["", "%-15s %6s %9s %6s %11s %8s %8s %7s" % (
            "filter", "pages", "requests", "round", "db seconds", "seconds", "cpu s", "missing")]
        for r in runs:
            lines.append("%-15s %6d %9d %6s %11s %8.2f %8.2f %7s" % (
                r["filter"], r["pages"], r["requests_scheduled"] + r["filtered"],
                r.get("round_trips", "-"), r.get("db_seconds", "-"), r["seconds"],
                r["cpu_seconds"], r.get("missing", "-")))
        sys.stderr.write("\n".join(lines) + "\n")
        if os.environ.get("CRAWL_FIGURES"):
            with open(os.environ["CRAWL_FIGURES"], "w") as f:
                json.dump(runs, f, indent=1)


if __name__ == "__main__":
    unittest.main()
