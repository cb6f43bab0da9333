"""Crawl one site with a CrawlSpider following same-host links, once, and
print a JSON summary (Twisted's reactor runs once per process, so each
crawl is a process of its own).

    python3 tests/crawlsite.py URL FILTER [MODE] [--out FILE] [--table T]

FILTER is "scrapy" (Scrapy's default RFPDupeFilter) or "postgres"
(bloomfilter_scrapy.PostgresDupeFilter, MODE two-tier, index or exact,
connecting with BLOOMFILTER_DSN from the environment, default libpq's).
The fetched URLs (one a line, sorted) go to FILE.
"""

import argparse
import json
import os
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from scrapy import signals  # noqa: E402
from scrapy.crawler import CrawlerProcess  # noqa: E402
from scrapy.linkextractors import LinkExtractor  # noqa: E402
from scrapy.spiders import CrawlSpider, Rule  # noqa: E402


class SiteSpider(CrawlSpider):
    name = "site"

    def __init__(self, start, allow=(), *args, **kwargs):
        parts = urlsplit(start)
        self.start_urls = [start]
        # OffsiteMiddleware compares host names, LinkExtractor host:port
        self.allowed_domains = [parts.hostname]
        self.rules = (Rule(LinkExtractor(allow_domains=[parts.netloc], allow=allow), callback="parse_page",
                           follow=True),)
        super().__init__(*args, **kwargs)

    def parse_page(self, response):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("filter", choices=["scrapy", "postgres"])
    ap.add_argument("mode", nargs="?", default="two-tier")
    ap.add_argument("--out")
    ap.add_argument("--table", default="scrapy_seen")
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--no-prefetch", action="store_true")
    ap.add_argument("--allow", default="", help="follow only links matching this regex")
    args = ap.parse_args()

    settings = {
        "LOG_LEVEL": os.environ.get("CRAWL_LOG_LEVEL", "WARNING"),
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "DOWNLOAD_DELAY": 0,
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }
    if args.filter == "postgres":
        settings.update({
            "DUPEFILTER_CLASS": "bloomfilter_scrapy.PostgresDupeFilter",
            "BLOOMFILTER_DSN": os.environ.get("BLOOMFILTER_DSN", ""),
            "BLOOMFILTER_MODE": args.mode,
            "BLOOMFILTER_TABLE": args.table,
            "BLOOMFILTER_BATCH_SIZE": args.batch_size,
        })
        if not args.no_prefetch:
            settings["SPIDER_MIDDLEWARES"] = {"bloomfilter_scrapy.PrefetchMiddleware": 1}

    fetched = []
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)

    def on_response(response, request, spider):
        fetched.append(request.url)

    # (signals hold weak references: on_response lives until main returns)
    crawler.signals.connect(on_response, signal=signals.response_received)
    start = time.perf_counter()
    cpu = time.process_time()
    process.crawl(crawler, start=args.url, allow=(args.allow,) if args.allow else ())
    process.start()
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    stats = crawler.stats.get_stats()
    if args.out:
        with open(args.out, "w") as f:
            f.write("".join(u + "\n" for u in sorted(fetched)))
    summary = {
        "filter": args.filter if args.filter == "scrapy" else args.mode,
        "pages": len(fetched),
        "distinct_pages": len(set(fetched)),
        "requests_scheduled": stats.get("scheduler/enqueued", 0),
        "filtered": stats.get("dupefilter/filtered", 0),
        "seconds": round(elapsed, 2),
        # the crawler's own CPU (the served site's and the server's apart):
        # steadier than elapsed time on a shared machine
        "cpu_seconds": round(cpu, 2),
    }
    summary.update({k.split("/", 1)[1]: v for k, v in stats.items() if k.startswith("bloomfilter/")})
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
