"""Who may call: clients and their secrets, tokens, tenancy, organization checks, rate limits."""
