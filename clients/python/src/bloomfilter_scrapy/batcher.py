"""The batching logic, free of Scrapy: which keys to send, and the answers.

Scrapy asks its duplicate filter about one request at a time and wants
the answer at once.  A round trip per request would cost more than the
crawl, so the answers are fetched ahead, a batch at a time (``prefetch``,
called with the requests a response produced before Scheduler sees any
of them), and kept here until asked (``seen``):

- ``fresh``: keys the server answered "new" (and recorded as seen) that
  Scrapy has not asked about yet.  The first question about such a key
  answers "not seen" and moves it to the cache; so a new key is handed
  out exactly once.
- ``cache``: keys known to be seen, most recently used last, at most
  ``cache_size`` of them.  The seen set only grows, so a cached "seen" is
  never wrong; a key evicted from it costs one more round trip, no more.

A key asked about that is in neither (a start request, a request from
somewhere else than a spider callback, a key evicted from the cache)
costs a round trip of its own.  ``unscheduled()`` lists the fresh keys
never asked about, so a closing crawl can un-record them.
"""

from collections import OrderedDict


class SeenBatcher:
    def __init__(self, store, batch_size=1000, cache_size=100000):
        if batch_size < 1:
            raise ValueError("BLOOMFILTER_BATCH_SIZE must be at least 1")
        self.store = store
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.fresh = OrderedDict()
        self.cache = OrderedDict()
        self.asked = 0
        self.answered_locally = 0
        self.sent = 0
        self.new = 0
        self.single_round_trips = 0
        self.answered_by_replica = 0

    def _remember_seen(self, key):
        self.cache[key] = None
        self.cache.move_to_end(key)
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)

    def prefetch(self, keys):
        """Test-and-add, in batches, the keys not answered locally."""
        todo = []
        queued = set()
        for k in keys:
            if k in self.cache:
                # the scheduler asks about it soon: keep it past the
                # answers this page adds to the cache
                self.cache.move_to_end(k)
                continue
            if k in self.fresh or k in queued:
                continue
            queued.add(k)
            todo.append(k)
        if todo:
            # a replica of the server's filter (replica mode) answers the
            # keys it holds; the rest go to the server
            local = self.store.local_seen(todo)
            rest = []
            for k, hit in zip(todo, local):
                if hit:
                    self._remember_seen(k)
                    self.answered_by_replica += 1
                else:
                    rest.append(k)
            todo = rest
        for i in range(0, len(todo), self.batch_size):
            self._send(todo[i:i + self.batch_size])

    def _send(self, batch):
        answers = self.store.test_and_add(batch)
        self.sent += len(batch)
        for k, is_new in zip(batch, answers):
            if is_new:
                self.fresh[k] = None
                self.new += 1
            else:
                self._remember_seen(k)

    def seen(self, key):
        """Scrapy's question: True to drop the request."""
        self.asked += 1
        if key in self.fresh:
            del self.fresh[key]
            self._remember_seen(key)
            self.answered_locally += 1
            return False
        if key in self.cache:
            self.cache.move_to_end(key)
            self.answered_locally += 1
            return True
        self.single_round_trips += 1
        self._send([key])
        return self.seen_after_send(key)

    def seen_after_send(self, key):
        if key in self.fresh:
            del self.fresh[key]
            self._remember_seen(key)
            return False
        return True

    def unscheduled(self):
        return list(self.fresh)
