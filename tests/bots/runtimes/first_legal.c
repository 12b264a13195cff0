/* Plays the first legal action: a compiled bot, to check the sandbox lets one run. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

int main(void) {
  static char line[1<<20]; while(fgets(line,sizeof line,stdin)){ if(strstr(line,"\"type\":\"hello\"")){puts("{\"type\":\"ready\",\"name\":\"c\"}");fflush(stdout);} else if(strstr(line,"\"type\":\"act\"")){ char*p=strstr(line,"\"id\":"); int id=atoi(p+5); char*l=strstr(line,"\"legal_actions\":[")+17; int d=0; char*e=l; for(;*e;e++){ if(*e=='{')d++; if(*e=='}'){d--; if(!d){e++;break;}}} *e=0; printf("{\"type\":\"action\",\"id\":%d,\"action\":%s}\n",id,l); fflush(stdout);} else if(strstr(line,"match_end")) break;} return 0;}
