#!/usr/bin/env bash
# The held-out PHP set (issue 32): fourteen Debian 12 PHP library packages
# (Doctrine DBAL/ORM, Guzzle, CommonMark, Monolog, Twig and eight Symfony
# components; 2,181 .php files), downloaded with apt-get at the versions
# below and unpacked, then 2,000 PHPDoc → method pairs with typo queries,
# seed 1. Another apt mirror state gives other versions: pin them with
# apt-get download NAME=VERSION where the archive still has them.
#
#   bash docs/bench/php/make_set.sh OUT_DIR [CGRAPH]
set -euo pipefail
out=${1:?usage: make_set.sh OUT_DIR [CGRAPH]}
cgraph=${2:-cgraph}
work=$(mktemp -d)
cd "$work"
for p in php-doctrine-dbal=3.6.1+dfsg-1 php-doctrine-orm=2.14.1+dfsg-1 php-guzzlehttp-guzzle=7.4.5-1 \
  php-league-commonmark=2.3.9-1+deb12u1 php-monolog=2.9.1-1 php-twig=3.5.1-1+deb12u3 \
  php-symfony-console=5.4.53+dfsg-0+deb12u1 php-symfony-dependency-injection=5.4.53+dfsg-0+deb12u1 \
  php-symfony-finder=5.4.53+dfsg-0+deb12u1 php-symfony-http-foundation=5.4.53+dfsg-0+deb12u1 \
  php-symfony-routing=5.4.53+dfsg-0+deb12u1 php-symfony-serializer=5.4.53+dfsg-0+deb12u1 \
  php-symfony-string=5.4.53+dfsg-0+deb12u1 php-symfony-validator=5.4.53+dfsg-0+deb12u1; do
  apt-get download -q "$p" >/dev/null
done
for d in *.deb; do dpkg -x "$d" root; done
cd - >/dev/null
"$cgraph" bench prepare csn-php --src "$work/root/usr/share/php" --out "$out" --typos --max 2000 --seed 1
rm -rf "$work"
