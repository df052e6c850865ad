"""Module docstring is not a function."""
import os


def join_paths(a, b,
               c=None):
    """Join two or three path parts with the platform separator.

    Longer explanation that is not part of the query.
    """
    parts = [a, b]
    if c is not None:
        parts.append(c)

    return os.path.join(*parts)


class Cache:
    '''A class docstring is skipped.'''

    async def fetch(self, key):
        r'''Fetch a value from the cache, loading it on a miss.'''
        if key not in self._d:
            self._d[key] = await self._load(key)
        return self._d[key]

    def nodoc(self):
        x = 1
        return x

    def tiny(self):
        """Return the answer to everything here."""
        return 42


def unterminated():
    """This docstring never ends
