"""The service's database: schema, connection and migrations (SQLite or PostgreSQL)."""
