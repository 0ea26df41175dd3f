"""Tests of the language-model back ends, the model catalog and `refind models`."""
