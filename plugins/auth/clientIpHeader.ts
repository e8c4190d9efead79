/** Set by the HTTP bridge from the socket (and trusted proxies), never by the client. */
export const CLIENT_IP_HEADER = 'x-osr-client-ip';
