"""What the blueprints share (they import from here, never from each other): reading a query
(:mod:`app.web.query`) or a request (:mod:`app.web.request`) into a scenario, the calculator form's fields and
words (:mod:`app.web.form`), problem documents (:mod:`app.web.problems`), the byte-counted caches
(:mod:`app.web.cache`) and compression and versioned static files (:mod:`app.web.assets`)."""
