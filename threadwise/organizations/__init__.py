"""Organization data kept in the database: policies and custom aspects, glossaries and
do-not-translate terms, usage and quotas; and the documents the REST API and the CLI show
of them."""
