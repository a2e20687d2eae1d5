"""Storage: the `Storage` interface the other wings use, its SQLite and PostgreSQL implementations,
the schema and its migrations, the records read back, and registered accounts."""
