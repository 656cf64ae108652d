"""The superpowers: what each operation does, independent of transport and engine."""
