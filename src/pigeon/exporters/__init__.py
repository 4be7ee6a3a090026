"""Export rendered requests to other tools' formats (`pigeon export`, DESIGN §6)."""
