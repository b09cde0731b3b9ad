"""The pure resolution core: dice, cards and the five rule engines. Standard library only."""
