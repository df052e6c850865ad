<?php
/**
 * Checks that pushing a value onto the ring keeps it at the head.
 */
function testPush()
{
    $r = new Ring(2);
    $r->push(1);
}
