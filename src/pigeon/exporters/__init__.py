"""Export rendered requests to other tools' formats."""
