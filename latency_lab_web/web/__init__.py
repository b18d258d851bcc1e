"""What the blueprints share (they import from here, never from each other): reading a query
(:mod:`latency_lab_web.web.query`) or a request (:mod:`latency_lab_web.web.request`) into a scenario, the calculator form's fields and
words (:mod:`latency_lab_web.web.form`), problem documents (:mod:`latency_lab_web.web.problems`), the byte-counted caches
(:mod:`latency_lab_web.web.cache`) and compression and versioned static files (:mod:`latency_lab_web.web.assets`)."""
