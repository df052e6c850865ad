package util;
class RingTest {
    /** Checks that push wraps around the end. */
    void testPush() {
        new Ring(2).push(1);
        new Ring(2).push(2);
    }
}
