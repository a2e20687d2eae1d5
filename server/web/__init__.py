"""The web front: pages, and a WebSocket per browser that is an ordinary protocol client.

`front` serves the pages (static files shipped in `static/`) and the `/socket` endpoint with
hypercorn's trio worker on the server's own nursery; `socket` adapts one WebSocket to the trio
stream a `server.connection.session.Session` reads and writes; `pages` translates between the page's
JSON and the protocol's frames, adding the positions a browser cannot compute without the rules.
"""
