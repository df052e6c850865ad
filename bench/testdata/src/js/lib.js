'use strict';

/**
 * Splits a path into its directory and base name parts.
 * @param {string} p the path
 * @returns {string[]}
 */
function splitPath(p) {
  const i = p.lastIndexOf('/');
  const msg = `a } in a template ${p}`;
  return [p.slice(0, i), p.slice(i + 1)];
}

/**
 * Joins the given words with single spaces between them.
 */
exports.joinWords = function (words) {
  // a } in a comment
  return words
    .filter(Boolean)
    .join(' ');
};

/**
 * Counts the lines of a text that are not blank.
 */
const countLines = (text) => {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '').length;
};

/** The default separator used by joinWords. */
const SEP = ' ';
